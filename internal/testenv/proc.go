package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// MarkEnv is the variable a test puts in the environment of a process it
// starts, with a value of its own: every process that inherits it (the
// browser, a daemon the process launched and let go) can then be found
// after it exited (Marked).
const MarkEnv = "VROOM_TEST_MARK"

// Marked lists the live processes whose environment holds MarkEnv=mark,
// as "pid name": what a process a test started left running, however it
// detached. Zombies, whose environment is gone, are not listed.
func Marked(mark string) []string {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return []string{"cannot read /proc: " + err.Error()}
	}
	want := MarkEnv + "=" + mark
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil || e.Name() == strconv.Itoa(os.Getpid()) {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !slices.Contains(strings.Split(string(env), "\x00"), want) {
			continue
		}
		name, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		out = append(out, e.Name()+" "+strings.TrimSpace(string(name)))
	}
	return out
}

// KillMarked SIGKILLs every live process whose environment holds
// MarkEnv=mark: what a server a test started launched in process groups
// of its own (Playwright's browsers), which killing the server's group
// leaves running.
func KillMarked(mark string) {
	for _, p := range Marked(mark) {
		pid, _, _ := strings.Cut(p, " ")
		if n, err := strconv.Atoi(pid); err == nil {
			_ = syscall.Kill(n, syscall.SIGKILL) // gone meanwhile is fine
		}
	}
}
