package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"
)

// A launched Chromium leaves things behind in the temp folder when it is
// killed rather than closed (its ProcessSingleton folder,
// org.chromium.Chromium.XXXXXX), and a killed browser on a persistent
// profile may not have written its last cookies. So each launch gets a
// scratch folder of its own, which is Chromium's TMPDIR and holds a
// throwaway profile, and which is removed once the process has exited —
// however it ended; and Close asks Chromium to close before it kills it.

// maxScratchBase is the longest temp folder a scratch folder goes in:
// Chromium puts a Unix socket at <scratch>/org.chromium.Chromium.XXXXXX/
// SingletonSocket, and a socket's path may not exceed 107 bytes (it fails
// to start with "Socket path too long" otherwise).
const maxScratchBase = 50

// closeGrace bounds the wait for Chromium to close when asked, before it
// is killed.
const closeGrace = 3 * time.Second

// ErrProfileInUse means another browser holds the persistent profile: two
// Chromiums on one profile would corrupt it, so the second is not started.
var ErrProfileInUse = errors.New("the persistent profile is in use")

// ProfileInUseError says who holds the profile.
type ProfileInUseError struct {
	Dir         string // the profile folder
	ChromiumPID int    // the Chromium holding it
	OwnerPID    int    // the process that started that Chromium, if known
	Owner       string // that process's name ("vroom"), if known
}

// Error names the holder, Vroom or another program.
func (e *ProfileInUseError) Error() string {
	who := fmt.Sprintf("a browser (Chromium pid %d)", e.ChromiumPID)
	if strings.Contains(e.Owner, "vroom") {
		who = fmt.Sprintf("another Vroom (pid %d)", e.OwnerPID)
	} else if e.Owner != "" {
		who = fmt.Sprintf("%s (pid %d, through Chromium pid %d)", e.Owner, e.OwnerPID, e.ChromiumPID)
	}
	return fmt.Sprintf("%v by %s: %s", ErrProfileInUse, who, e.Dir)
}

// Unwrap matches ErrProfileInUse.
func (e *ProfileInUseError) Unwrap() error { return ErrProfileInUse }

// profileFree checks that no live process holds dir: Chromium's
// SingletonLock names the holder as "host-pid". A lock left by a browser
// that died is not in the way (Chromium takes it over).
func profileFree(dir string) error {
	target, err := os.Readlink(filepath.Join(dir, "SingletonLock"))
	if err != nil {
		return nil // no lock: nobody holds it
	}
	host, pidText, ok := strings.Cut(target, "-")
	pid, perr := strconv.Atoi(pidText)
	if me, _ := os.Hostname(); !ok || perr != nil || host != me || pid <= 0 {
		return nil // another machine's lock, or one we cannot read: Chromium decides
	}
	if syscall.Kill(pid, 0) != nil {
		return nil
	}
	e := &ProfileInUseError{Dir: dir, ChromiumPID: pid}
	e.OwnerPID, e.Owner = parentOf(pid)
	return e
}

// parentOf is pid's parent process and its name, from /proc (zero where
// there is none).
func parentOf(pid int) (int, string) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, ""
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			ppid, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || ppid <= 1 {
				return 0, ""
			}
			comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", ppid))
			if err != nil {
				return ppid, ""
			}
			return ppid, strings.TrimSpace(string(comm))
		}
	}
	return 0, ""
}

// scratch makes a launch's scratch folder and the allocator options that
// put Chromium's temporary files (and, without a persistent profile, its
// profile) in it.
func scratch(profileDir string) (string, []chromedp.ExecAllocatorOption, error) {
	base := os.TempDir()
	if len(base) > maxScratchBase {
		base = "/tmp" // a long TMPDIR (macOS's) would make Chromium's socket path too long
	}
	dir, err := os.MkdirTemp(base, "vroom-")
	if err != nil {
		return "", nil, fmt.Errorf("scratch folder: %w", err)
	}
	opts := []chromedp.ExecAllocatorOption{chromedp.Env("TMPDIR=" + dir)}
	if profileDir == "" {
		opts = append(opts, chromedp.UserDataDir(filepath.Join(dir, "profile")))
	}
	return dir, opts, nil
}

// removeScratch removes a scratch folder once its Chromium has exited.
// Child processes may still be writing for a moment after the browser
// exits, which makes the first removal fail with "directory not empty".
func removeScratch(dir string, logf func(string, ...any)) {
	var err error
	for range 50 {
		if err = os.RemoveAll(dir); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond) // a child process finishing
	}
	logf("remove %s: %v", dir, err)
}

// closeLaunched asks a launched Chromium to close, and kills it when it
// has not within closeGrace. What the request meets is not returned: the
// kill that follows ends the browser either way.
func closeLaunched(bctx context.Context) {
	ctx, cancel := context.WithTimeout(bctx, closeGrace)
	defer cancel()
	_ = chromedp.Cancel(ctx) // a dead or deaf browser is killed by the caller's cancel
}
