package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// strict reports whether a missing component is a failure: in CI, or inside
// build/testenv.sh, which promises every component.
func strict() bool {
	return os.Getenv("CI") == "true" || os.Getenv("VROOM_TESTENV") != ""
}

func missing(tb testing.TB, what string) {
	tb.Helper()
	if strict() {
		tb.Fatalf("%s is missing: run the tests through build/testenv.sh (make test)", what)
	}
	tb.Skipf("%s is missing; run `make test` for the whole suite", what)
}

// NeedDisplay requires an X display (Xvfb under make test).
func NeedDisplay(tb testing.TB) {
	tb.Helper()
	if os.Getenv("DISPLAY") == "" {
		missing(tb, "an X display (DISPLAY)")
	}
}

// NeedSecretService requires a D-Bus session, where make test runs an
// unlocked gnome-keyring.
func NeedSecretService(tb testing.TB) {
	tb.Helper()
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		missing(tb, "a D-Bus session with a Secret Service")
	}
}

// NeedPulse requires a PulseAudio server with the test sinks vroom_speaker
// and vroom_micfeed.
func NeedPulse(tb testing.TB) {
	tb.Helper()
	out, err := exec.Command("pactl", "list", "short", "sinks").Output()
	if err != nil || !strings.Contains(string(out), "vroom_speaker") || !strings.Contains(string(out), "vroom_micfeed") {
		missing(tb, "PulseAudio with the vroom_speaker and vroom_micfeed sinks")
	}
}

// Chromium returns the Chromium the tests drive: VROOM_CHROME, or Debian's.
func Chromium(tb testing.TB) string {
	tb.Helper()
	for _, p := range []string{os.Getenv("VROOM_CHROME"), "/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/google-chrome"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	missing(tb, "Chromium (apt-get install chromium)")
	return ""
}
