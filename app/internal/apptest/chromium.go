package apptest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"vroom/browser"
	"vroom/internal/testenv"
)

// RemoteChromium starts a Chromium as a remote browser farm runs one
// (--remote-debugging-port=0), stopped when the test ends; without
// Chromium the test is skipped (failed in CI).
func RemoteChromium(t *testing.T) *testenv.Remote {
	t.Helper()
	path, err := browser.FindChrome()
	if err != nil {
		testenv.Missing(t, fmt.Sprintf("Chromium (%v)", err))
		return nil
	}
	return testenv.RemoteChromium(t, path)
}

// Context is a context for one test's browser calls: it ends with the
// test, or after 30 s.
func Context(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
