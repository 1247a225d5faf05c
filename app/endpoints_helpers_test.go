package app

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/remote"
	"vroom/app/runner"
	"vroom/browser"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// remoteChromium is a Chromium started as a remote browser farm would run
// one (testenv.Remote).
type remoteChromium = testenv.Remote

// startChromium starts one with --remote-debugging-port=0.
func startChromium(t *testing.T) *remoteChromium {
	t.Helper()
	needBrowser(t)
	path, err := browser.FindChrome()
	if err != nil {
		t.Fatal(err)
	}
	return testenv.RemoteChromium(t, path)
}

// remoteRun is `vroom run` in-process with --browser flags: its run and
// tabs once started, its output and exit code once over.
type remoteRun struct {
	mu   sync.Mutex
	run  *agents.Run
	tabs *runner.Tabs
	// remote is the run's remote browsers.
	remote *remote.Pool
	out    bytes.Buffer
	errb   bytes.Buffer
	code   int
	done   chan struct{}
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
	env.Ready = func(b *runner.BuiltRun, pool *remote.Pool) {
		rr.mu.Lock()
		rr.run, rr.tabs, rr.remote = b.Run, b.Tabs, pool
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
func (rr *remoteRun) pool(t *testing.T) *remote.Pool {
	t.Helper()
	select {
	case <-rr.started:
	case <-rr.done:
		t.Fatalf("the run ended before it started: exit %d\n%s", rr.code, rr.errb.String())
	}
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if rr.remote == nil {
		t.Fatal("the run has no remote browsers")
	}
	return rr.remote
}
