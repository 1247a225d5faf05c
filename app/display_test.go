package app

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoDisplay: `vroom` without a graphical session says so in one line
// (and that vroom run works headless) and exits 1, without a stack trace;
// so does a DISPLAY naming a server that is not there.
func TestNoDisplay(t *testing.T) {
	t.Parallel()
	for name, env := range map[string][]string{
		"unset": {"DISPLAY=", "WAYLAND_DISPLAY="},
		"stale": {"DISPLAY=:987", "WAYLAND_DISPLAY="},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(append(os.Environ(), cliEnv+"=1", "VROOM_CONFIG_DIR="+t.TempDir()), env...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("exit %v\n%s", err, errb.String())
			}
			msg := errb.String()
			if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "graphical session") || !strings.Contains(msg, "vroom run") ||
				strings.Contains(msg, "goroutine") || strings.Contains(msg, "panic") {
				t.Fatalf("stderr:\n%s", msg)
			}
		})
	}
}
