package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Strict reports whether a missing component is a failure rather than a
// skip: in CI, or inside build/testenv.sh (VROOM_TESTENV), which promises
// every component.
func Strict() bool {
	return os.Getenv("CI") == "true" || os.Getenv("VROOM_TESTENV") != ""
}

// Missing fails tb in strict mode and skips it otherwise, naming what is
// missing.
func Missing(tb testing.TB, what string) {
	tb.Helper()
	if Strict() {
		tb.Fatalf("%s is missing: run the tests through build/testenv.sh (make test)", what)
	}
	tb.Skipf("%s is missing; run `make test` for the whole suite", what)
}

// MainMissing is Missing for a TestMain, which has no testing.TB. It says
// on stderr what is missing and reports whether that is fatal: in strict
// mode the TestMain must exit non-zero; otherwise it goes on without the
// tests that need the component (or exits 0 when they all do).
func MainMissing(what string) (fatal bool) {
	if Strict() {
		fmt.Fprintf(os.Stderr, "testenv: %s is missing: run the tests through build/testenv.sh (make test)\n", what)
		return true
	}
	fmt.Fprintf(os.Stderr, "testenv: %s is missing; the tests that need it skip (run `make test` for the whole suite)\n", what)
	return false
}

// NeedDisplay requires an X display (Xvfb under make test).
func NeedDisplay(tb testing.TB) {
	tb.Helper()
	if os.Getenv("DISPLAY") == "" {
		Missing(tb, "an X display (DISPLAY)")
	}
}

// NeedSecretService requires a D-Bus session, where make test runs an
// unlocked gnome-keyring.
func NeedSecretService(tb testing.TB) {
	tb.Helper()
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		Missing(tb, "a D-Bus session with a Secret Service")
	}
}

// NeedPulse requires a PulseAudio server with the test sinks vroom_speaker
// and vroom_micfeed.
func NeedPulse(tb testing.TB) {
	tb.Helper()
	out, err := exec.Command("pactl", "list", "short", "sinks").Output()
	if err != nil || !strings.Contains(string(out), "vroom_speaker") || !strings.Contains(string(out), "vroom_micfeed") {
		Missing(tb, "PulseAudio with the vroom_speaker and vroom_micfeed sinks")
	}
}
