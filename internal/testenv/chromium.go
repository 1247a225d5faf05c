package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Chromium returns the Chromium the tests drive, found as
// browser.FindChrome finds it.
func Chromium(tb testing.TB) string {
	tb.Helper()
	p, err := FindChromium()
	if err != nil {
		Missing(tb, fmt.Sprintf("Chromium (apt-get install chromium): %v", err))
	}
	return p
}

// FindChromium searches as browser.FindChrome does: VROOM_CHROME, then
// ChromiumPaths' files, then its names on the PATH.
func FindChromium() (string, error) {
	if p := os.Getenv("VROOM_CHROME"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("VROOM_CHROME=%s: %w", p, err)
		}
		return p, nil
	}
	files, names := ChromiumPaths(runtime.GOOS, os.Getenv)
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && !st.IsDir() {
			return f, nil
		}
	}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium or Chrome executable found (set VROOM_CHROME)")
}

// ChromiumPaths is browser's search list for goos: install locations, in
// order, then program names for the PATH; getenv reads Windows' program
// folders. It is a copy, since testenv may not import browser (and
// browser imports nothing of ours); browser's tests fail when the two
// differ.
func ChromiumPaths(goos string, getenv func(string) string) (files, names []string) {
	switch goos {
	case "darwin":
		files = []string{
			"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
			"/Applications/Chromium.app/Contents/MacOS/Chromium",
			"/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
			"/Applications/Brave Browser.app/Contents/MacOS/Brave Browser",
		}
	case "windows":
		for _, env := range []string{"ProgramFiles", "ProgramFiles(x86)", "LocalAppData"} {
			if dir := getenv(env); dir != "" {
				files = append(files,
					filepath.Join(dir, `Google\Chrome\Application\chrome.exe`),
					filepath.Join(dir, `Chromium\Application\chrome.exe`),
					filepath.Join(dir, `Microsoft\Edge\Application\msedge.exe`))
			}
		}
	default:
		files = []string{
			"/usr/lib/chromium/chromium",
			"/usr/lib/chromium-browser/chromium-browser",
			"/opt/google/chrome/chrome",
			"/snap/bin/chromium",
		}
	}
	names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "msedge"}
	return files, names
}
