package cli

// The harness of cli's tests: one Chromium for the binary, the test binary
// run as the vroom command (cliEnv) so a command can be tested as a real
// process (signals, exit codes), and vroom run in-process over remote
// browsers.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/internal/apptest"
	"vroom/app/remote"
	"vroom/app/runner"
	"vroom/browser"
	"vroom/internal/modeltest"
)

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

// cliEnv makes the test binary act as the vroom command.
const cliEnv = "VROOM_TEST_CLI"

// testBrowser is the test binary's one Chromium; every test opens its own
// tabs.
var testBrowser *browser.Browser

func TestMain(m *testing.M) {
	if os.Getenv(cliEnv) == "1" {
		os.Exit(command(context.Background(), os.Args[1:]))
	}
	os.Exit(apptest.Main(m, &testBrowser))
}

// command dispatches the subcommands as vroom's own Main does (app, which
// a test of cli cannot import).
func command(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "vroom (test binary): no command")
		return 2
	}
	switch args[0] {
	case "run":
		return Run(ctx, args[1:], os.Stdout, os.Stderr)
	case "replay":
		return Replay(ctx, args[1:], os.Stdout, os.Stderr)
	case "doctor":
		return Doctor(ctx, args[1:], os.Stdout, os.Stderr)
	case "mcp":
		return MCP(ctx, args[1:], os.Stdin, os.Stdout, os.Stderr)
	case "observe":
		return Observe(ctx, args[1:], os.Stdout, os.Stderr)
	}
	fmt.Fprintf(os.Stderr, "vroom (test binary): unknown command %q\n", args[0])
	return 2
}

// needBrowser skips a test without Chromium, except in CI where it fails.
func needBrowser(tb testing.TB) {
	tb.Helper()
	apptest.NeedBrowser(tb, testBrowser)
}

// testEnv is a vroom run environment over the shared browser and a
// scripted model: the settings point at srv, there is no key (the server
// is local), and runs are logged in a temporary data directory.
func testEnv(t *testing.T, srv *modeltest.Server) runEnv {
	st := config.DefaultSettings()
	st.BaseURL = srv.URL
	st.PlannerModel, st.ExecutorModel = "planner", "executor"
	return runEnv{
		Settings: st,
		Key:      func(context.Context) (string, error) { return "", config.ErrNoKey },
		DataDir:  t.TempDir(),
		Browser:  testBrowser,
	}
}

// The test binary run as the vroom command (cliEnv): how the CLI's tests
// start `vroom run` and `vroom doctor` as real processes.

// vroomCmd is `vroom args...` with its data and config in dir, key as
// OPENAI_API_KEY, and env over the test's own environment.
func vroomCmd(dir, key string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), cliEnv+"=1", "VROOM_DATA_DIR="+dir, "VROOM_CONFIG_DIR="+dir, "OPENAI_API_KEY="+key), env...)
	return cmd
}

// cliRun is a vroom command running as a process of its own, for a test
// that acts on it (kills its browser or sound server, signals it) while it
// runs.
type cliRun struct {
	cmd      *exec.Cmd
	dir      string       // its data and config directory
	out, err bytes.Buffer // read only after exited
	exited   chan error
	exitedAt time.Time // valid once exited is read
}

// startCLI starts `vroom args...` in a directory of its own (see
// vroomCmd); it is killed when the test ends, if it has not exited.
func startCLI(t *testing.T, key string, env []string, args ...string) *cliRun {
	t.Helper()
	return startCLIAt(t, t.TempDir(), key, env, args...)
}

// startCLIAt is startCLI with its data and config in dir, which another
// run may share (the persistent profile).
func startCLIAt(t *testing.T, dir, key string, env []string, args ...string) *cliRun {
	t.Helper()
	r := &cliRun{dir: dir, exited: make(chan error, 1)}
	r.cmd = vroomCmd(r.dir, key, env, args...)
	r.cmd.Stdout, r.cmd.Stderr = &r.out, &r.err
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := r.cmd.Wait()
		r.exitedAt = time.Now()
		r.exited <- err
	}()
	t.Cleanup(func() { r.cmd.Process.Kill() })
	return r
}

// await returns once reached is closed, failing the test if the process
// exits first or what (what reached means) has not happened within d.
func (r *cliRun) await(t *testing.T, reached <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-reached:
	case err := <-r.exited:
		t.Fatalf("vroom exited early: %v\n%s", err, r.err.String())
	case <-time.After(d):
		r.cmd.Process.Kill()
		<-r.exited
		t.Fatalf("%s: not within %v\n%s", what, d, r.err.String())
	}
}

// wait returns the process's end, failing the test after d.
func (r *cliRun) wait(t *testing.T, d time.Duration) error {
	t.Helper()
	select {
	case err := <-r.exited:
		return err
	case <-time.After(d):
		r.cmd.Process.Kill()
		<-r.exited
		t.Fatalf("vroom still running after %v\nstdout:\n%s\nstderr:\n%s", d, r.out.String(), r.err.String())
		return nil
	}
}

// log returns the run's log records.
func (r *cliRun) log(t *testing.T) []agents.LogRecord {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(r.dir, "runs", "*.jsonl"))
	if len(paths) != 1 {
		t.Fatalf("run logs %v", paths)
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	recs, err := agents.ReadRunLog(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
