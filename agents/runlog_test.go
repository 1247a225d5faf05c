package agents

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vroom/internal/modeltest"
)

// fullDisk is a log writer that takes room bytes, then fails every
// write as a full disk does; it names itself as a file would.
type fullDisk struct {
	mu   sync.Mutex
	room int
	// failOn, when set, makes the disk full once a write contains it.
	failOn string
	full   bool
}

func (d *fullDisk) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.failOn != "" && strings.Contains(string(p), d.failOn) {
		d.full = true
	}
	if d.full || len(p) > d.room {
		d.full = true
		n := max(0, min(d.room, len(p)))
		d.room -= n
		return n, &os.PathError{Op: "write", Path: "/data/runs/x.jsonl", Err: syscall.ENOSPC}
	}
	d.room -= len(p)
	return len(p), nil
}

func (d *fullDisk) Name() string { return "/data/runs/x.jsonl" }

// A log that fills the disk mid-run stops the run at once, with an error
// naming the file and the cause, instead of running on and claiming
// success with its record cut.
func TestRunLogFullDiskFailsTheRun(t *testing.T) {
	t.Parallel()
	disk := &fullDisk{room: 1 << 20, failOn: `"event":"spawn"`}
	tr := newTestRun(t, func(c *Config) { c.Log = NewRunLog(disk, nil) })
	tr.srv.Then("planner", spawn("read the price", "url", "http://shop.test/"), modeltest.Call("wait", map[string]any{"mode": "all"}),
		done("the price is 12 EUR", true))
	// The executor's model call would take a minute: the run must not wait for it.
	tr.srv.Then("executor", modeltest.Slow(time.Minute, done("the price is 12 EUR", true)))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	began := time.Now()
	res, err := tr.Execute(ctx, "what does it cost")
	took := time.Since(began)
	var le *RunLogError
	if !errors.As(err, &le) || !errors.Is(err, ErrRunLogWrite) || !errors.Is(err, syscall.ENOSPC) || res.Success {
		t.Fatalf("run ended with %v (%+v): want the log's write error", err, res)
	}
	if want := "the run log cannot be written: /data/runs/x.jsonl: no space left on device"; err.Error() != want || !strings.Contains(res.Summary, want) {
		t.Fatalf("err %q, summary %q: want %q", err, res.Summary, want)
	}
	if took > 5*time.Second {
		t.Fatalf("the run stopped %v after the log failed", took)
	}
}

// A log whose last record (the run's end) cannot be written makes the
// run a failure even though the planner succeeded, keeping its summary.
func TestRunLogCutAtTheEndIsNoSuccess(t *testing.T) {
	t.Parallel()
	disk := &fullDisk{room: 1 << 20, failOn: `"event":"run_done"`}
	tr := newTestRun(t, func(c *Config) { c.Log = NewRunLog(disk, nil) })
	tr.srv.Then("planner", done("three skills added", true))
	sub := tr.Room().Subscribe(t.Context())
	res, err := tr.Execute(context.Background(), "add skills")
	if !errors.Is(err, ErrRunLogWrite) || res.Success {
		t.Fatalf("run ended with %v (%+v): want a failure naming the log", err, res)
	}
	if !strings.HasPrefix(res.Summary, "three skills added (the run log cannot be written") {
		t.Fatalf("summary %q: want the planner's with the log's fault", res.Summary)
	}
	for e := range sub.C() {
		if ri, ok := e.Data.(RunInfo); ok && ri.State != RunStarted {
			if ri.Success || ri.State != RunFailed {
				t.Fatalf("the room says %+v", ri)
			}
			return
		}
	}
}

// A log file whose permission is taken away mid-run fails as a full
// disk does, naming the file.
func TestRunLogErrorNamesTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, err := CreateRunLog(dir, "20260101-000000-abcd", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.c.Close(); err != nil { // the descriptor gone under the log
		t.Fatal(err)
	}
	told := make(chan error, 1)
	l.onFail(func(err error) { told <- err })
	l.Write(LogRecord{Event: LogRunStart})
	select {
	case err := <-told:
		path := filepath.Join(dir, "20260101-000000-abcd.jsonl")
		if !errors.Is(err, ErrRunLogWrite) || !strings.Contains(err.Error(), path) || !errors.Is(l.Err(), ErrRunLogWrite) {
			t.Fatalf("told %v: want the write error naming %s", err, path)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first write error was not told")
	}
}

// FormatEvent prints a model wait as its notice, and its end.
func TestFormatModelWait(t *testing.T) {
	t.Parallel()
	w := ModelWait{Agent: "planner", Role: RolePlanner, Reason: "HTTP 429", WaitS: 20, Attempt: 3, Retries: 3}
	if got := FormatEvent(Event{Kind: EventModelWait, Agent: "planner", Data: w}); got != "model server slow: waiting 20 s for planner, retry 2/3 (HTTP 429)" {
		t.Errorf("wait: %q", got)
	}
	if got := FormatEvent(Event{Kind: EventModelWait, Agent: "planner", Data: ModelWait{Agent: "planner", Done: true}}); got != "model server answered planner" {
		t.Errorf("done: %q", got)
	}
}
