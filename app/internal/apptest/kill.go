package apptest

import (
	"syscall"
	"testing"
	"time"

	"vroom/internal/testenv"
)

// KillChromium SIGKILLs the Chromium on profile and returns when.
func KillChromium(t testing.TB, profile string) time.Time {
	pid, err := testenv.ChromiumPID(profile)
	if err != nil {
		t.Error(err)
		return time.Now()
	}
	at := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Errorf("kill chromium %d: %v", pid, err)
	}
	return at
}
