package runner

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// The executor's wait tool against real Chromium:
// each condition, the idle case, a timeout that says so, and a person's
// correction cutting a wait short. late.html changes only when the test
// releases a response the page is waiting for.

// lateEvents are late.html's held responses, one per condition.
var lateEvents = []string{"text", "gone", "url", "control"}

// releaseAfter is how long after the model's reply an event is released:
// the wait has begun by then, so it has something to wait for.
const releaseAfter = 300 * time.Millisecond

// held answers late.html's request for event ev once the test releases it.
func (s *flowSite) held(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	ch, ok := s.late[r.PathValue("ev")]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	select {
	case <-ch:
		w.Write([]byte("ok"))
	case <-r.Context().Done():
	}
}

// release lets late.html's event ev happen after d.
func (s *flowSite) release(ev string, d time.Duration) {
	time.AfterFunc(d, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		select {
		case <-s.late[ev]:
		default:
			close(s.late[ev])
		}
	})
}

// TestWaitConditions: text, gone, url and query each end a wait when they
// come true, the result carrying what changed; with every request
// answered the page goes idle; a condition that never holds times out,
// and the result says so.
func TestWaitConditions(t *testing.T) {
	s := newFlowSite(t)
	h := newHarness(t, nil)
	waits := []struct {
		ev   string
		args []any
		want []string // in the result
	}{
		{"text", []any{"text", "Report ready"}, []string{`until text "Report ready" appeared`, "Report ready: revenue up 12%."}},
		{"gone", []any{"gone", "Loading report"}, []string{`until text "Loading report" went away`}},
		{"url", []any{"url", "step=done"}, []string{`until the URL contained "step=done"`, "step=done"}},
		{"control", []any{"query", "Download report"}, []string{`until a control matching "Download report" appeared`, `button "Download report"`}},
		{"", nil, []string{"until the page was idle"}},
		{"", []any{"text", "Revenue down", "timeout_s", 1}, []string{`timed out after 1.0s: text "Revenue down" did not appear`}},
	}
	h.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "read the report when it is ready", "url": s.URL + "/late.html"}))
	h.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		n := r.ToolResults()
		if n == len(waits) {
			return apptest.Done("read it", true)
		}
		if ev := waits[n].ev; ev != "" {
			s.release(ev, releaseAfter)
		}
		return apptest.Call("wait", waits[n].args...)
	}})
	h.execute(t, "read the report")
	reqs := h.srv.Requests("executor")
	for i, w := range waits {
		got := reqs[i+1].LastText()
		for _, want := range w.want {
			if !strings.Contains(got, want) {
				t.Errorf("wait %d (%v)'s result lacks %q:\n%s", i+1, w.args, want, got)
			}
		}
		if i < 4 && strings.Contains(got, "timed out") {
			t.Errorf("wait %d timed out:\n%s", i+1, got)
		}
	}
}

// TestWaitCutShortByCorrection: the person speaks while an executor waits
// 30 s for text that never comes; the wait ends at once, and its result
// says why, with the correction.
func TestWaitCutShortByCorrection(t *testing.T) {
	s := newFlowSite(t)
	h := newHarness(t, nil)
	const said = "stop waiting, the report is late today"
	h.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "read the report when it is ready", "url": s.URL + "/late.html"}))
	h.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if r.ToolResults() == 0 {
			time.AfterFunc(2*releaseAfter, func() { h.Room().UserSays(said) })
			return apptest.Call("wait", "text", "Report ready", "timeout_s", 30)
		}
		return apptest.Done("stopped waiting as the user asked", true)
	}})
	start := time.Now()
	h.execute(t, "read the report")
	if took := time.Since(start); took > 15*time.Second {
		t.Fatalf("the run took %v: the correction did not cut the 30 s wait short", took)
	}
	got := h.srv.Requests("executor")[1].LastText()
	if !strings.HasPrefix(got, "wait cut short after") || !strings.Contains(got, said) {
		t.Fatalf("the wait's result:\n%s", got)
	}
}
