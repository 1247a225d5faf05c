package app

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"vroom/agents"
)

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
	r := &cliRun{dir: t.TempDir(), exited: make(chan error, 1)}
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
