package apptest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"vroom/browser"
	"vroom/internal/testenv"
)

// Main runs a test binary's tests with one Chromium for all of them, put
// in *b for the tests to open their own tabs in. Without Chromium *b stays
// nil and the tests that need it skip (testenv.MainMissing says whether
// that fails instead). It returns the exit code.
func Main(m *testing.M, b **browser.Browser) int {
	if _, err := browser.FindChrome(); err != nil {
		if testenv.MainMissing(fmt.Sprintf("Chromium (%v)", err)) {
			return 1
		}
		return m.Run()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	br, err := browser.Launch(ctx, browser.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "launch Chromium:", err)
		return 1
	}
	*b = br
	defer br.Close()
	return m.Run()
}

// NeedBrowser skips a test when the binary has no Chromium (b is nil),
// except in CI, where it fails.
func NeedBrowser(tb testing.TB, b *browser.Browser) {
	tb.Helper()
	if b == nil {
		testenv.Missing(tb, "Chromium")
	}
}

// NeedChromium skips a test that launches a Chromium of its own when none
// is installed, except in CI, where it fails.
func NeedChromium(tb testing.TB) {
	tb.Helper()
	if _, err := browser.FindChrome(); err != nil {
		testenv.Missing(tb, fmt.Sprintf("Chromium (%v)", err))
	}
}
