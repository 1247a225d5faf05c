package cli

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vroom/app/config"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// exitCodeOf is a finished process's exit status (-1: it did not exit).
func exitCodeOf(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -1
}

// markOf is an environment entry that marks every process a test's vroom
// starts, so what it left running can be found (testenv.Marked).
func markOf(t *testing.T) (env, mark string) {
	mark = strings.ReplaceAll(t.Name(), "/", "-") + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	return testenv.MarkEnv + "=" + mark, mark
}

// noneLeft fails the test if a process vroom started (its browser, a bus
// or keyring daemon it launched) is still running a few seconds after it
// exited.
func noneLeft(t *testing.T, mark string) {
	t.Helper()
	var left []string
	ok := func() bool { left = testenv.Marked(mark); return len(left) == 0 }
	if ok() {
		return
	}
	// A browser's helpers may outlive it by a moment; a daemon stays.
	defer func() {
		if len(left) > 0 {
			t.Errorf("processes left running after vroom exited: %v", left)
		}
	}()
	testkit.WaitFor(t, 3*time.Second, "no process left by vroom", ok)
}

// TestFaultNoKey: vroom run with no key anywhere and no D-Bus session bus
// says so in one line naming OPENAI_API_KEY and Settings, exits 1, and
// leaves no D-Bus or keyring daemon behind (the keyring is not asked:
// asking it would launch both, and they would outlive vroom).
func TestFaultNoKey(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	mark, id := markOf(t)
	began := time.Now()
	r := startCLI(t, "", []string{mark, "DBUS_SESSION_BUS_ADDRESS="}, "run", "--base-url", "https://api.example.com/v1", "anything")
	err := r.wait(t, 20*time.Second)
	noneLeft(t, id)
	if code := exitCodeOf(err); code != 1 {
		t.Fatalf("exit %d (%v)\n%s", code, err, r.err.String())
	}
	lines := strings.Split(strings.TrimSpace(r.err.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "OPENAI_API_KEY") || !strings.Contains(lines[0], "Settings") ||
		strings.Contains(lines[0], "keyring") {
		t.Fatalf("stderr %q: want one line naming OPENAI_API_KEY and Settings", r.err.String())
	}
	t.Logf("after %v: %s", time.Since(began).Round(time.Millisecond), lines[0])
}

// TestFaultProfileInUse: a second vroom run on the persistent profile
// another one holds is refused within seconds, saying who holds it and
// what to do, not Chromium's SingletonLock lines; the first goes on.
func TestFaultProfileInUse(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	srv.Then("planner", apptest.Call("spawn", "task", "quote", "url", s.URL+"/quote.html"), apptest.Call("wait", "mode", "all"), apptest.Done("never", true))
	working := make(chan struct{})
	var once sync.Once
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(*modeltest.Request) modeltest.Reply {
		once.Do(func() { close(working) })
		return modeltest.Slow(time.Minute, apptest.Call("read_page"))
	}})
	dir := t.TempDir()
	args := func(url string) []string {
		return []string{"run", "--profile", "persistent", "--base-url", url, "--model", "executor", "--planner-model", "planner", "get a quote"}
	}
	first := startCLIAt(t, dir, "sk-test-first", nil, args(srv.URL)...)
	first.await(t, working, 30*time.Second, "the first run's executor at work")

	other := modeltest.New(t)
	other.Script("planner", modeltest.Step{Times: -1, Reply: modeltest.Slow(time.Minute, apptest.Done("never", true))})
	began := time.Now()
	second := startCLIAt(t, dir, "sk-test-second", nil, args(other.URL)...)
	err := second.wait(t, 20*time.Second)
	took := time.Since(began)
	if code := exitCodeOf(err); code != 1 {
		t.Fatalf("second run: exit %d (%v)\n%s", code, err, second.err.String())
	}
	msg := second.err.String()
	for _, want := range []string{"the persistent profile is in use by", "pid " + strconv.Itoa(first.cmd.Process.Pid), "use --profile ephemeral or close it"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "SingletonLock") {
		t.Errorf("stderr has Chromium's own lines:\n%s", msg)
	}
	if took > 10*time.Second {
		t.Errorf("refused after %v", took)
	}
	t.Logf("refused after %v:\n%s", took.Round(time.Millisecond), msg)
	select {
	case err := <-first.exited:
		t.Fatalf("the first run ended: %v\n%s", err, first.err.String())
	default:
	}
	if err := first.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	first.wait(t, 15*time.Second)
}

// TestRunFlagErrorIsOneLine: a bad flag says what is wrong and where help
// is, in two lines, never the whole usage; -h still prints it all.
func TestRunFlagErrorIsOneLine(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--bogus", "task"}, {"--max-steps", "x", "task"}, {"--allow-host", "a b", "task"}} {
		var errb testkit.LockedBuffer
		code := runTask(t.Context(), args, runEnv{Settings: config.DefaultSettings()}, &errb, &errb)
		lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
		if code != 2 || len(lines) != 2 || !strings.HasPrefix(lines[0], "vroom run: ") || lines[1] != "vroom run -h for more" {
			t.Errorf("vroom run %q: exit %d, said:\n%s", args, code, errb.String())
		}
	}
	var help testkit.LockedBuffer
	if code := runTask(t.Context(), []string{"-h"}, runEnv{Settings: config.DefaultSettings()}, &help, &help); code != 0 ||
		!strings.Contains(help.String(), "usage: vroom run") || !strings.Contains(help.String(), "-max-steps") {
		t.Errorf("vroom run -h: exit %d, said:\n%s", code, help.String())
	}
}
