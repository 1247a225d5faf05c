package app

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// displayDial bounds trying the display's socket before the window opens.
const displayDial = time.Second

// checkDisplay reports, before GTK is touched, whether a graphical session
// answers: GTK without one does not return an error but panics from its
// init ("failed to init GTK"), a stack trace for what is a setup question.
// It dials the Wayland or X11 socket the environment names, so a DISPLAY
// left over from a closed session is caught too. Off Linux and the BSDs
// the window system is always there.
func checkDisplay(getenv func(string) string) error {
	switch runtime.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
	default:
		return nil
	}
	wl, x := getenv("WAYLAND_DISPLAY"), getenv("DISPLAY")
	if wl == "" && x == "" {
		return fmt.Errorf("%w: neither DISPLAY nor WAYLAND_DISPLAY is set", ErrNoDisplay)
	}
	var errs []string
	if wl != "" {
		err := dial("unix", waylandSocket(wl, getenv("XDG_RUNTIME_DIR")))
		if err == nil {
			return nil
		}
		errs = append(errs, fmt.Sprintf("WAYLAND_DISPLAY=%s: %v", wl, err))
	}
	if x != "" {
		network, addr, err := x11Socket(x)
		if err == nil {
			err = dial(network, addr)
		}
		if err == nil {
			return nil
		}
		errs = append(errs, fmt.Sprintf("DISPLAY=%s: %v", x, err))
	}
	return fmt.Errorf("%w: %s", ErrNoDisplay, strings.Join(errs, "; "))
}

func dial(network, addr string) error {
	c, err := net.DialTimeout(network, addr, displayDial)
	if err != nil {
		return fmt.Errorf("no display answers: %w", err)
	}
	return c.Close()
}

// waylandSocket is the compositor's socket: WAYLAND_DISPLAY is a name in
// XDG_RUNTIME_DIR, or an absolute path.
func waylandSocket(name, runtimeDir string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(runtimeDir, name)
}

// x11Socket is where the X server of DISPLAY listens: ":N" and "unix:N" a
// local socket, "host:N" TCP port 6000+N. (An abstract socket, which some
// servers also offer, has the same path behind a NUL; the file is enough.)
func x11Socket(display string) (network, addr string, err error) {
	host, rest, ok := strings.Cut(display, ":")
	if !ok {
		return "", "", fmt.Errorf("not a display name")
	}
	num, _, _ := strings.Cut(rest, ".")
	var n int
	if _, err := fmt.Sscanf(num, "%d", &n); err != nil {
		return "", "", fmt.Errorf("not a display name")
	}
	if host == "" || host == "unix" {
		sock := fmt.Sprintf("/tmp/.X11-unix/X%d", n)
		if _, err := os.Stat(sock); err != nil {
			return "", "", fmt.Errorf("no X server socket: %w", err)
		}
		return "unix", sock, nil
	}
	return "tcp", net.JoinHostPort(host, fmt.Sprint(6000+n)), nil
}
