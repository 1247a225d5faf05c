package app

import (
	"context"
	"os"
	"testing"

	"vroom/app/internal/apptest"
	"vroom/browser"
)

// cliEnv makes the test binary act as the vroom command, so `vroom run`
// can be tested as a real process (signals, exit codes) without building
// the desktop binary.
const cliEnv = "VROOM_TEST_CLI"

// testBrowser is the test binary's one Chromium; every test opens its own
// tabs.
var testBrowser *browser.Browser

func TestMain(m *testing.M) {
	if os.Getenv(cliEnv) == "1" {
		os.Exit(Main(context.Background(), os.Args[1:], nil, os.Stdout, os.Stderr))
	}
	os.Exit(apptest.Main(m, &testBrowser))
}

// needBrowser skips a test without Chromium, except in CI where it fails.
func needBrowser(tb testing.TB) {
	tb.Helper()
	apptest.NeedBrowser(tb, testBrowser)
}
