package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ChromiumPID finds the main Chromium process running on the profile
// directory profile (its helpers carry --type=), so that a fault test can
// kill the browser of its own and no other: tests share the machine's
// Chromium binary, never a profile.
func ChromiumPID(profile string) (int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("find chromium: %w", err)
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		// Chromium rewrites its command line as one string (its process
		// title), so the flags are matched as text.
		cmd := string(b)
		if strings.Contains(cmd, "--user-data-dir="+profile) && !strings.Contains(cmd, "--type=") {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("find chromium: no process on %s", profile)
}

// KillChromium SIGKILLs the main Chromium on profile, as a crash would end
// it, and returns when. It reports a failure with Errorf rather than
// Fatalf, so the goroutine that does the killing may be one the test
// started (a tab provider killing mid-call); the time returned then is
// now.
func KillChromium(tb testing.TB, profile string) time.Time {
	tb.Helper()
	pid, err := ChromiumPID(profile)
	if err != nil {
		tb.Error(err)
		return time.Now()
	}
	at := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		tb.Errorf("kill chromium %d: %v", pid, err)
	}
	return at
}
