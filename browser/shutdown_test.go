package browser

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"vroom/internal/testenv"
)

// shutdownMode is how the child process below ends its browser.
const shutdownMode = "VROOM_TEST_SHUTDOWN"

// Whatever ends a launched browser — Close, its context cancelled (as
// Ctrl-C does), or the process killed as a crash would — the temp folder
// is left as it was: nothing of Chromium's (its ProcessSingleton folder,
// a throwaway profile) stays behind. Each case runs in a child process
// with a temp folder of its own, so other tests' browsers are not counted.
func TestShutdownLeavesTempAsItWas(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"close", "cancel", "kill"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			// A short folder: Chromium's socket path under it must stay
			// under 108 bytes, and t.TempDir's names are long.
			tmp, err := os.MkdirTemp("/tmp", "vst")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(tmp)
			profile := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestShutdownChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, shutdownMode+"="+mode, "VROOM_TEST_PROFILE="+profile)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			left, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range left {
				names = append(names, e.Name())
			}
			if len(names) > 0 {
				t.Fatalf("left in the temp folder after %s: %s", mode, strings.Join(names, ", "))
			}
		})
	}
}

// TestShutdownChild is the child of TestShutdownLeavesTempAsItWas: it
// does nothing unless that test started it.
func TestShutdownChild(t *testing.T) {
	mode := os.Getenv(shutdownMode)
	if mode == "" {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := Options{}
	if mode == "kill" {
		opts.ProfileDir = os.Getenv("VROOM_TEST_PROFILE")
	}
	b, err := Launch(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := b.Open(ctx, site.URL+"/form.html")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Observe(ctx, ObserveOptions{}); err != nil {
		t.Fatal(err)
	}
	switch mode {
	case "cancel":
		cancel() // Close runs on its own; a Close now waits for it
	case "kill":
		pid, err := testenv.ChromiumPID(opts.ProfileDir)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Close(); err != nil && mode == "close" {
		t.Fatal(err)
	}
}

// A persistent profile that a running browser holds is not opened by a
// second one: the error says so and names the holder's process, instead
// of Chromium's raw lines about a SingletonLock.
func TestProfileInUse(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	profile := filepath.Join(t.TempDir(), "profile")
	first, err := Launch(ctx, Options{ProfileDir: profile})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	_, err = Launch(ctx, Options{ProfileDir: profile})
	var inUse *ProfileInUseError
	if !errors.Is(err, ErrProfileInUse) || !errors.As(err, &inUse) || inUse.ChromiumPID <= 0 || inUse.OwnerPID != os.Getpid() {
		t.Fatalf("second launch: %v, want the profile in use by this process", err)
	}
	if !strings.Contains(err.Error(), "pid") || strings.Contains(err.Error(), "SingletonLock") {
		t.Errorf("message %q", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Launch(ctx, Options{ProfileDir: profile})
	if err != nil {
		t.Fatalf("after the first closed, the profile is free: %v", err)
	}
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
}
