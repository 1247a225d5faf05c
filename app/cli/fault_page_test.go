package cli

import (
	"strings"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// TestFaultPages: hostile pages reach the agent as words within seconds,
// through vroom run.
func TestFaultPages(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	t.Run("script-never-yields", faultBusyPage)
	t.Run("redirect-loop", faultRedirectLoop)
}

// A page whose script never yields (while(true)) is said busy to the
// agent within 3 s of the call that met it, with what it can do, not
// after the 30 s call timeout; the agent reports it and the run ends.
func faultBusyPage(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	srv.Then("planner", apptest.Call("spawn", "task", "use the page", "url", s.URL+"/busy.html"), apptest.Call("wait", "mode", "all"),
		apptest.Done("the page is stuck", false))
	srv.Script("executor",
		modeltest.Step{Match: modeltest.ToolResults(0), Func: func(r *modeltest.Request) modeltest.Reply {
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Freeze"))
		}},
		modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
			if strings.Contains(r.LastText(), "may be stuck") || r.ToolResults() > 4 {
				return apptest.Done("the page's script is stuck", false)
			}
			return apptest.Call("read_page") // the click may return before its handler runs
		}})
	r := runBounded(t, srv, nil, "use the busy page")
	if r.code != 1 {
		t.Fatalf("exit %d", r.code)
	}
	reqs := srv.Requests("executor")
	told := -1
	for i, q := range reqs {
		if strings.Contains(q.LastText(), "may be stuck") {
			told = i
			break
		}
	}
	if told < 1 {
		t.Fatalf("the agent was never told the page is busy; its last result: %s", reqs[len(reqs)-1].LastText())
	}
	took := reqs[told].At.Sub(reqs[told-1].At)
	if took > 3*time.Second {
		t.Errorf("the call that met the busy page answered after %v, want within 3 s", took)
	}
	t.Logf("said busy %v after the call; the agent read: %s", took.Round(time.Millisecond), apptest.Tail(reqs[told].LastText(), 400))
	if strings.Contains(reqs[told].LastText(), "-32") {
		t.Errorf("a protocol code reached the model: %s", reqs[told].LastText())
	}
}

// A page that redirects itself forever gives the agents words (the page
// changed while it was being read), never a raw protocol error with its
// code; the run ends as they decide.
func faultRedirectLoop(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	srv.Then("planner", apptest.Call("spawn", "task", "read the page", "url", s.URL+"/redirectloop.html"), apptest.Call("wait", "mode", "all"),
		apptest.Done("the page never settles", true))
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if r.ToolResults() >= 6 {
			return apptest.Done("the page keeps redirecting", false)
		}
		return apptest.Call("observe")
	}})
	r := runBounded(t, srv, nil, "read the looping page")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	reqs := append(srv.Requests("executor"), srv.Requests("planner")...)
	for _, q := range reqs {
		for _, raw := range []string{"-32000", "(-3"} {
			if strings.Contains(q.Text(), raw) {
				t.Fatalf("a raw protocol error reached the model: %s", apptest.Tail(q.Text(), 2000))
			}
		}
	}
	t.Logf("%d executor requests; the planner read: %s", len(srv.Requests("executor")), apptest.Tail(srv.Requests("planner")[2].LastText(), 600))
}
