package app

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vroom/agents"
	"vroom/browser"
	"vroom/internal/modeltest"
)

// remoteChromium is a Chromium started as a remote browser farm would run
// one: its own process, a DevTools port on loopback, a throwaway profile.
type remoteChromium struct {
	cmd *exec.Cmd
	// HTTP is http://127.0.0.1:PORT (resolved through /json/version), WS
	// the browser's own ws://127.0.0.1:PORT/devtools/browser/ID.
	HTTP, WS string
}

// startChromium starts one with --remote-debugging-port=0 and reads the
// port Chromium chose from DevToolsActivePort in its profile.
func startChromium(t *testing.T) *remoteChromium {
	t.Helper()
	needBrowser(t)
	path, err := browser.FindChrome()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(path, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--no-first-run", "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
		"--user-data-dir="+dir, "about:blank")
	// Its own process group, so a kill takes its helpers (renderers,
	// zygote) with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	rc := &remoteChromium{cmd: cmd}
	t.Cleanup(func() {
		rc.kill()
		<-exited
	})
	var port, wsPath string
	waitFor(t, 30*time.Second, "Chromium's DevToolsActivePort", func() bool {
		select {
		case <-exited:
			t.Fatalf("Chromium exited at start:\n%s", errb.String())
		default:
		}
		b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if err != nil || len(lines) < 2 {
			return false
		}
		port, wsPath = lines[0], lines[1]
		return true
	})
	rc.HTTP = "http://127.0.0.1:" + port
	rc.WS = "ws://127.0.0.1:" + port + wsPath
	return rc
}

// kill SIGKILLs the browser and its helpers, as a crash or an OOM kill
// would.
func (rc *remoteChromium) kill() {
	syscall.Kill(-rc.cmd.Process.Pid, syscall.SIGKILL)
}

// remoteRun is `vroom run` in-process with --browser flags: its run and
// tabs once started, its output and exit code once over.
type remoteRun struct {
	mu   sync.Mutex
	run  *agents.Run
	tabs *Tabs
	out  bytes.Buffer
	errb bytes.Buffer
	code int
	done chan struct{}
	// started is closed when the run has its tabs (env.Ready).
	started chan struct{}
}

// startRemoteRun runs task through runTask over the scripted model srv
// with args (the --browser flags) before the task.
func startRemoteRun(t *testing.T, srv *modeltest.Server, task string, args ...string) *remoteRun {
	t.Helper()
	env := testEnv(t, srv)
	env.Browser = nil
	rr := &remoteRun{done: make(chan struct{}), started: make(chan struct{})}
	env.Ready = func(r *agents.Run, tabs *Tabs) {
		rr.mu.Lock()
		rr.run, rr.tabs = r, tabs
		rr.mu.Unlock()
		close(rr.started)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	go func() {
		defer close(rr.done)
		defer cancel()
		rr.code = runTask(ctx, append(args, task), env, &rr.out, &rr.errb)
	}()
	t.Cleanup(func() {
		cancel()
		<-rr.done
	})
	return rr
}

// wait waits for the run's end and returns its exit code.
func (rr *remoteRun) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-rr.done:
	case <-time.After(90 * time.Second):
		t.Fatal("the run did not end")
	}
	return rr.code
}

// pool is the run's remote browsers, once it has started.
func (rr *remoteRun) pool(t *testing.T) *Endpoints {
	t.Helper()
	select {
	case <-rr.started:
	case <-rr.done:
		t.Fatalf("the run ended before it started: exit %d\n%s", rr.code, rr.errb.String())
	}
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if rr.tabs.remote == nil {
		t.Fatal("the run has no remote browsers")
	}
	return rr.tabs.remote
}
