package agents

import (
	"strings"
	"testing"

	"vroom/internal/modeltest"
)

// Reading the page several times must not push the control list, with its
// refs, out of the prompt: read_page's text is pruned on its own count.
func TestReadPageKeepsControlList(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	tr.tabs.page = func(ft *fakeTab) {
		ft.addControl(&fakeControl{ref: "e1", role: "button", name: "Add skill"})
	}
	tr.srv.Then("planner", spawn("read, then add a skill", "url", "http://linked.test/profile"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("done", true))
	tr.srv.Then("executor",
		modeltest.Call("read_page", map[string]any{}),
		modeltest.Call("read_page", map[string]any{}),
		modeltest.Call("read_page", map[string]any{}),
		done("read three times", true))
	if res := tr.execute(t, "read and add"); !res.Success {
		t.Fatalf("result %+v", res)
	}
	reqs := tr.srv.Requests("executor")
	last := reqs[len(reqs)-1].Text()
	if !strings.Contains(last, `e1 button "Add skill"`) {
		t.Fatalf("after three read_page calls the prompt lost the control list:\n%s", last)
	}
	if n := strings.Count(last, "the page's text:"); n < 3 {
		t.Fatalf("%d read_page results in the prompt, want all three (older ones shortened)", n)
	}
}
