package main

import (
	"os"
	"testing"
)

// requireSecretService skips on a developer laptop without a Secret Service
// but fails in CI, where build/testenv.sh must have started one.
func requireSecretService(t *testing.T) {
	t.Helper()
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return
	}
	if os.Getenv("CI") == "true" || os.Getenv("VROOM_TESTENV") != "" {
		t.Fatal("no D-Bus session: run the tests through build/testenv.sh (make test)")
	}
	t.Skip("no D-Bus session with a Secret Service; run `make test`")
}
