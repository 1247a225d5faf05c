package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// ErrNoSessionBus means there is no D-Bus session bus to reach the
// system keyring through (a terminal over SSH, a container, a CI job):
// the keyring is not asked at all.
var ErrNoSessionBus = errors.New("no D-Bus session bus, so no system keyring (DBUS_SESSION_BUS_ADDRESS is unset)")

// Without a session bus to find, go-keyring's D-Bus library runs
// dbus-launch, which starts a session bus that outlives Vroom, and asking
// it for the Secret Service starts a gnome-keyring-daemon on it too: two
// daemons left behind by a command that only looked for a key. So the
// keyring is asked only where a bus is already there, found as that
// library finds one, less the launch. (Setting DBUS_SESSION_BUS_ADDRESS to
// "disabled:" around the lookup would do the same, but it changes the
// environment of the whole process and of every program it starts, the
// browser included, from whichever goroutine looks the key up.)

// sessionBus reports whether a D-Bus session bus is there to ask: an
// address in DBUS_SESSION_BUS_ADDRESS ("autolaunch:" asks for the launch
// itself), or the bus systemd runs at /run/user/UID (runDir) as a socket,
// bus, or as an address in dbus-session. Where the keyring does not go
// through D-Bus (macOS, Windows) there is nothing to launch.
func sessionBus(goos string, getenv func(string) string, runDir string) bool {
	if goos == "darwin" || goos == "windows" {
		return true
	}
	if a := strings.TrimSpace(getenv("DBUS_SESSION_BUS_ADDRESS")); a != "" && a != "autolaunch:" {
		return true
	}
	for _, name := range []string{"bus", "dbus-session"} {
		if _, err := os.Stat(filepath.Join(runDir, name)); err == nil {
			return true
		}
	}
	return false
}

// haveSessionBus is sessionBus for this process.
func haveSessionBus() bool {
	return sessionBus(runtime.GOOS, os.Getenv, filepath.Join("/run/user", strconv.Itoa(os.Getuid())))
}
