package agents

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"vroom/internal/modeltest"
)

// The executor's observe and wait tools, honest verdicts and the "page now"
// section, over the in-memory tab. The real tab is proved end to end in app
// (flows_test.go).

// observe with a query and roles reaches the tab as FindOptions, and its
// result is the narrowed list, fenced.
func TestObserveFinds(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	tr.tabs.page = func(ft *fakeTab) {
		ft.addControl(&fakeControl{ref: "e1", role: "button", name: "Like post 1"})
		ft.addControl(&fakeControl{ref: "e200", role: "button", name: "Add skill"})
	}
	tr.srv.Then("planner", spawn("add a skill", "url", "http://pro.test/me"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("ok", true))
	tr.srv.Then("executor",
		modeltest.Call("observe", map[string]any{"query": "add skill", "roles": "button, link", "within": "e9", "limit": 5}),
		done("found it", true))
	tr.execute(t, "add a skill")
	res, _ := tr.srv.Requests("executor")[1].LastMessage()
	for _, want := range []string{`observed the controls matching "add skill", with roles button,link, within e9`, `e200 button "Add skill"`, `trust="untrusted"`} {
		if !strings.Contains(res.Content, want) {
			t.Fatalf("observe's result lacks %q:\n%s", want, res.Content)
		}
	}
	if strings.Contains(res.Content, "Like post 1") {
		t.Fatalf("observe's result holds a control that does not match:\n%s", res.Content)
	}
	want := []FindOptions{{Query: "add skill", Roles: []string{"button", "link"}, Within: "e9", Limit: 5}}
	if got := tr.tabs.tab("tab-1").finds; !reflect.DeepEqual(got, want) {
		t.Fatalf("Find got %+v, want %+v", got, want)
	}
}

// A change the tab did not report as an effect, but that the diff shows,
// is an effect: the result never says "no visible effect", and clicking
// it five times does not trip the loop detector. "still loading" passes
// through.
func TestVerdictIsHonest(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	n := 1
	tr.tabs.page = func(ft *fakeTab) {
		ft.addControl(&fakeControl{ref: "e2", role: "button", name: "Increase quantity", unseen: true, pending: 2, click: func(*fakeTab) string {
			n++
			return fmt.Sprintf(`~ e3 spinbutton "Quantity" = "%d"`, n)
		}})
		ft.addControl(&fakeControl{ref: "e4", role: "button", name: "Dead"})
	}
	tr.srv.Then("planner", spawn("buy", "url", "http://shop.test/cart"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("ok", true))
	click := modeltest.Call("click", map[string]string{"ref": "e2"})
	dead := modeltest.Call("click", map[string]string{"ref": "e4"})
	tr.srv.Then("executor", click, click, click, click, click, dead, dead, dead, done("six", true))
	if res := tr.execute(t, "buy"); !res.Success {
		t.Fatalf("the loop detector stopped clicks that had an effect: %+v", res)
	}
	reqs := tr.srv.Requests("executor")
	first, _ := reqs[1].LastMessage()
	if strings.Contains(first.Content, NoEffect) || !strings.Contains(first.Content, `"Quantity" = "2"`) ||
		!strings.Contains(first.Content, "still loading (2 requests)") {
		t.Fatalf("the stepper's result:\n%s", first.Content)
	}
	dead3, _ := reqs[8].LastMessage()
	if !strings.Contains(dead3.Content, NoEffect) || !strings.Contains(dead3.Content, "WARNING") {
		t.Fatalf("a click that changed nothing, three times, is not reported as such:\n%s", dead3.Content)
	}
}

// Diffs shrink out of the prompt after three; the fourth diff since the
// latest full view carries the page as it is now, so a control seen only
// in a shrunk diff keeps its ref in the prompt.
func TestPageNowKeepsSeenControls(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	tr.srv.Then("planner", spawn("type", "url", "http://pro.test/me"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("ok", true))
	typeIt := func(s string) modeltest.Reply {
		return modeltest.Call("type", map[string]any{"ref": "e1", "text": s})
	}
	tr.srv.Then("executor", modeltest.Calls(modeltest.CallOf("click", map[string]string{"ref": "e1"})),
		typeIt("G"), typeIt("Go"), typeIt("Gol"), typeIt("Gola"), done("typed", true))
	// The first keystroke makes a Save button appear (in that diff only).
	tr.tabs.page = func(ft *fakeTab) {
		ft.addControl(&fakeControl{ref: "e1", role: "textbox", name: "Skill", click: func(t *fakeTab) string {
			t.controls = append(t.controls, &fakeControl{ref: "e7", role: "button", name: "Save"})
			return `+ e7 button "Save"`
		}})
	}
	tr.execute(t, "type")
	reqs := tr.srv.Requests("executor")
	last := reqs[len(reqs)-1].Text()
	if !strings.Contains(last, `e7 button "Save"`) || !strings.Contains(last, "page now") {
		t.Fatalf("after five diffs the prompt lost Save:\n%s", last)
	}
	if n := strings.Count(last, "page now"); n != 1 {
		t.Fatalf("%d page-now sections, want one (at the fourth diff)", n)
	}
}

// wait's result says which condition held, or honestly that it timed out,
// with what changed meanwhile; timeout_s defaults to 10 s and is capped at
// 30 s.
func TestWaitToolResults(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	var timeouts []time.Duration
	tr.tabs.page = func(ft *fakeTab) {
		ft.waitFor = func(ctx context.Context, t *fakeTab, w WaitFor, timeout time.Duration) (WaitOutcome, error) {
			t.mu.Lock()
			defer t.mu.Unlock()
			timeouts = append(timeouts, timeout)
			if w.Text == "never" {
				return WaitOutcome{Took: timeout, Pending: 1}, nil
			}
			t.changes = append(t.changes, "text now: Order confirmed")
			return WaitOutcome{Met: true, Took: 300 * time.Millisecond}, nil
		}
	}
	tr.srv.Then("planner", spawn("wait", "url", "http://shop.test/"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("ok", true))
	tr.srv.Then("executor",
		modeltest.Call("wait", map[string]any{"text": "Order confirmed"}),
		modeltest.Call("wait", map[string]any{"text": "never", "timeout_s": 99}),
		modeltest.Call("wait", map[string]any{}),
		done("waited", true))
	tr.execute(t, "wait")
	reqs := tr.srv.Requests("executor")
	for i, want := range []string{
		`waited 0.3s until text "Order confirmed" appeared`,
		`timed out after 30.0s: text "never" did not appear (still loading: 1 requests)`,
		"waited 0.3s until the page was idle",
	} {
		m, _ := reqs[i+1].LastMessage()
		if !strings.HasPrefix(m.Content, want) {
			t.Fatalf("wait %d's result:\n%s\nwant it to start with %q", i+1, m.Content, want)
		}
	}
	if m, _ := reqs[1].LastMessage(); !strings.Contains(m.Content, "text now: Order confirmed") {
		t.Fatalf("wait's result lacks what changed:\n%s", m.Content)
	}
	if want := []time.Duration{10 * time.Second, 30 * time.Second, 10 * time.Second}; !reflect.DeepEqual(timeouts, want) {
		t.Fatalf("timeouts %v, want %v", timeouts, want)
	}
}

// A person's correction cuts a wait short, and the result says so with
// the correction in it.
func TestWaitCutShortByCorrection(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	waiting := make(chan struct{})
	tr.tabs.page = func(ft *fakeTab) {
		ft.waitFor = func(ctx context.Context, t *fakeTab, w WaitFor, timeout time.Duration) (WaitOutcome, error) {
			close(waiting)
			<-ctx.Done()
			return WaitOutcome{}, ctx.Err()
		}
	}
	// The correction cuts the planner's wait short too: it waits again.
	tr.srv.Script("planner", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch {
		case r.ToolResults() == 0:
			return spawn("wait", "url", "http://shop.test/")
		case strings.Contains(r.LastText(), `"running":[]`):
			return done("ok", true)
		}
		return modeltest.Call("wait", map[string]any{"mode": "all"})
	}})
	tr.srv.Then("executor", modeltest.Call("wait", map[string]any{"text": "Shipped", "timeout_s": 30}), done("stopped", true))
	go func() {
		<-waiting
		tr.Room().UserSays("stop waiting, it will not ship today")
	}()
	start := time.Now()
	tr.execute(t, "wait")
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the run took %v: the correction did not cut the wait short", took)
	}
	m, _ := tr.srv.Requests("executor")[1].LastMessage()
	if !strings.HasPrefix(m.Content, "wait cut short after") || !strings.Contains(m.Content, "stop waiting, it will not ship today") {
		t.Fatalf("the wait's result:\n%s", m.Content)
	}
}

// The planner knows the attached tabs by id, title and URL.
func TestPlannerSeesAttachedTabs(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	repo := newFakeTab("T1", "https://github.com/ada/engine")
	repo.title = "ada/engine: the analytical engine"
	prof := newFakeTab("T2", "https://pro.test/in/ada")
	prof.title = "Ada Lovelace | ProNet"
	tr.tabs.put(repo)
	tr.tabs.put(prof)
	tr.srv.Then("planner", done("ok", true))
	tr.execute(t, "add the repo's language to my profile", "T1", "T2")
	first := tr.srv.Requests("planner")[0].Text()
	for _, want := range []string{
		`- tab T1: title "ada/engine: the analytical engine", URL https://github.com/ada/engine`,
		`- tab T2: title "Ada Lovelace | ProNet", URL https://pro.test/in/ada`,
	} {
		if !strings.Contains(first, want) {
			t.Fatalf("the planner's first prompt lacks %q:\n%s", want, first)
		}
	}
}
