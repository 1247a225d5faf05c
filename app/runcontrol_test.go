package app

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// TestSessionBudgetStop: a run that uses up its token budget stops with a
// message that says which budget, how much was used, and where to change
// it, distinct from a task that failed on its own.
func TestSessionBudgetStop(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	s := apptest.NewSite(t)
	st, err := d.State()
	if err != nil {
		t.Fatal(err)
	}
	st.Settings.Budgets.MaxRunTokens = 6000
	if _, err := d.SaveSettings(st.Settings); err != nil {
		t.Fatal(err)
	}
	d.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "read forever", "url": s.URL + "/quote.html"}))
	d.srv.Script("executor", modeltest.Step{Times: -1, Reply: modeltest.Call("read_page", map[string]any{})})
	if _, err := d.StartRun("read the desk forever", nil); err != nil {
		t.Fatal(err)
	}
	x, _ := d.ui.wait(t, 60*time.Second, string(EventRun), 0, func(x any) bool { return x.(RunView).State != "running" })
	v := x.(RunView)
	if v.State != "failed" || v.Stop != "budget" || !strings.Contains(v.Summary, "the token budget of 6000 tokens was used up") || !strings.Contains(v.Summary, "Settings") {
		t.Fatalf("run ended %+v", v)
	}
	for _, p := range v.Procs {
		if p.State != agents.ProcKilled {
			t.Errorf("agent %d left %s", p.PID, p.State)
		}
	}
}

// TestSessionRunLogDiskFull: a run whose log lands on a full disk (a
// small tmpfs) stops at once, and the window says why, where the log is
// and what to do, instead of a run that claims success with no record.
func TestSessionRunLogDiskFull(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	testenv.SmallDisk(t, filepath.Join(d.dir, "runs"), 64<<10, 0)
	d.srv.Script("planner", modeltest.Step{Reply: modeltest.Slow(time.Minute, apptest.Done("never", true))})
	began := time.Now()
	if _, err := d.StartRun("anything", nil); err != nil {
		t.Fatal(err)
	}
	x, _ := d.ui.wait(t, 10*time.Second, string(EventRun), 0, func(x any) bool { return x.(RunView).State != "running" })
	v := x.(RunView)
	for _, want := range []string{"the run log cannot be written", filepath.Join(d.dir, "runs"), "no space left on device", "Free some disk space"} {
		if !strings.Contains(v.Summary, want) {
			t.Errorf("summary %q lacks %q", v.Summary, want)
		}
	}
	if v.State != RunFailed || v.Stop != StopRunLog {
		t.Fatalf("run ended %s (%s): want failed, stopped for its log", v.State, v.Stop)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Fatalf("the run stopped %v after it began (its planner's call takes a minute)", took)
	}
	t.Logf("the window shows: %s", v.Summary)
}
