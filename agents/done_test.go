package agents

import (
	"strings"
	"testing"

	"vroom/internal/modeltest"
)

// A done without a summary is refused once with what to send; the model
// that then sends one finishes as usual.
func TestDoneWithoutSummaryAskedOnce(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	tr.srv.Then("planner", modeltest.Call("done", map[string]any{}), done("three skills added", true))
	res := tr.execute(t, "add skills")
	if res.Summary != "three skills added" || !res.Success {
		t.Fatalf("result %+v", res)
	}
	second := tr.srv.Requests("planner")[1].Text()
	if !strings.Contains(second, "done needs a summary") {
		t.Fatalf("the refusal did not reach the model:\n%s", clip(second, 2000))
	}
}

// A model that sends done without a summary twice ends the run with what
// its agents reported, never with nothing.
func TestDoneWithoutSummaryTwiceKeepsTheReports(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	tr.srv.Then("planner", spawn("read the price", "url", "http://shop.test/"), modeltest.Call("wait", map[string]any{"mode": "all"}),
		modeltest.Call("done", map[string]any{"success": true}), modeltest.Call("done", map[string]any{"summary": " ", "success": true}))
	tr.srv.Then("executor", done("the price is 12 EUR", true))
	res := tr.execute(t, "what does it cost")
	if !strings.Contains(res.Summary, "without a summary") || !strings.Contains(res.Summary, "the price is 12 EUR") {
		t.Fatalf("summary %q: want the fallback with the executor's report", res.Summary)
	}
	if n := len(tr.srv.Requests("planner")); n != 4 {
		t.Fatalf("planner calls: %d, want 4 (spawn, wait, done, done)", n)
	}
}
