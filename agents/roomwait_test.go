package agents

import (
	"fmt"
	"strings"
	"testing"

	"vroom/internal/modeltest"
)

// Four agents say one line each, in order: each waits in one call for the
// line before it to be said and its speaker to finish, then speaks. No
// speak is refused and no agent polls.
func TestPoemInTurnWithRoomWait(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	lines := []string{"1. The tabs are open wide,", "2. four agents side by side,", "3. each one waits its turn,", "4. and none of them will burn."}
	var tasks []string
	for i := range lines {
		tasks = append(tasks, fmt.Sprintf("poem line %d: say line %d of the poem, after line %d", i+1, i+1, i))
	}
	tr.srv.Script("planner", modeltest.PlannerTasks(tasks...))
	for i, line := range lines {
		var replies []modeltest.Reply
		if i > 0 {
			replies = append(replies, modeltest.Call("wait", map[string]any{"heard": fmt.Sprintf("%d. ", i), "floor_free": true, "timeout_s": 20}))
		}
		replies = append(replies, modeltest.Call("speak", map[string]string{"text": line}), done("said my line", true))
		for _, r := range replies {
			tr.srv.Script("executor", modeltest.Step{Match: modeltest.SystemContains(fmt.Sprintf("poem line %d:", i+1)), Reply: r})
		}
	}
	res := tr.execute(t, "a four-line poem, one line each, in order")
	if !res.Success {
		t.Fatalf("run: %+v", res)
	}
	var said []string
	for _, e := range tr.Room().Transcript() {
		if e.Kind == EntrySpeech {
			said = append(said, e.Text)
		}
	}
	if strings.Join(said, "|") != strings.Join(lines, "|") {
		t.Fatalf("said in this order:\n%s", strings.Join(said, "\n"))
	}
	for _, r := range records(t, tr.log) {
		if r.Event == LogFloorRejected {
			t.Errorf("a speak was refused: %+v", r)
		}
	}
	for i := range lines {
		calls := 0
		for _, req := range tr.srv.Requests("executor") {
			if modeltest.SystemContains(fmt.Sprintf("poem line %d:", i+1))(req) {
				calls++
			}
		}
		if want := min(i, 1) + 2; calls != want {
			t.Errorf("agent with line %d made %d model calls, want %d", i+1, calls, want)
		}
	}
}

// A wait for a message times out honestly when nobody says it, and a
// message said before the wait began is heard at once.
func TestRoomWaitHeardBeforeAndNever(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	tr.Room().Notice("the build is green")
	tr.srv.Script("planner", modeltest.PlannerTasks("listen"))
	tr.srv.Then("executor",
		modeltest.Call("wait", map[string]any{"heard": "BUILD IS GREEN"}),
		modeltest.Call("wait", map[string]any{"heard": "never said", "timeout_s": 0.3}),
		done("heard it", true))
	tr.execute(t, "listen")
	reqs := tr.srv.Requests("executor")
	if got := reqs[1].LastText(); !strings.Contains(got, `until system said "the build is green"`) {
		t.Errorf("first wait: %s", clip(got, 400))
	}
	if got := reqs[2].LastText(); !strings.Contains(got, `timed out after 0.3s: nobody said "never said"`) {
		t.Errorf("second wait: %s", clip(got, 400))
	}
}
