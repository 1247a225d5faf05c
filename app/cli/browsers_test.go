package cli

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// TestRemoteSpread: `vroom run` with two remote
// browsers — real Chromium processes, one given by its http:// DevTools
// address (resolved through /json/version), one by its ws:// URL — and
// four agents: each endpoint gets two of their tabs, every agent does its
// work there, and the run succeeds.
func TestRemoteSpread(t *testing.T) {
	a, b := apptest.RemoteChromium(t), apptest.RemoteChromium(t)
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	names := []string{"North", "East", "South", "West"}
	var spawns []map[string]any
	for _, n := range names {
		task := "get a quote from the " + n + " desk"
		spawns = append(spawns, map[string]any{"task": task, "url": s.URL + "/quote.html?name=" + n})
		srv.Script("executor", apptest.QuoteExecutor(modeltest.SystemContains(task), 0, 0))
	}
	srv.Script("planner", modeltest.PlannerScript(spawns...))
	rr := startRemoteRun(t, srv, "get four quotes", "--max-agents", "4", "--browser", a.HTTP, "--browser", b.WS)
	pool := rr.pool(t)
	if code := rr.wait(t); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, rr.out.String(), rr.errb.String())
	}
	st := pool.Status()
	if len(st) != 2 || st[0].Opened != 2 || st[1].Opened != 2 {
		t.Fatalf("tabs per endpoint: %+v; want two each", st)
	}
	s.State(func(s *apptest.Site) {
		if s.Quotes != 4 {
			t.Errorf("the site served %d quotes, want 4", s.Quotes)
		}
	})
	for _, want := range []string{"quote 101", "quote 104"} {
		if !strings.Contains(rr.out.String(), want) {
			t.Errorf("the run's output does not say %q:\n%s", want, rr.out.String())
		}
	}
	t.Logf("endpoints: %+v", st)
}

// TestRemoteEndpointKilled: two remote browsers,
// one agent working in each; the first one's Chromium is SIGKILLed while
// its agent waits in the page. That agent ends failed, told its tab is
// gone; the other finishes; the run goes on (headless, it no longer ends
// with one browser), and the agent the planner spawns next gets its tab
// in the browser still up.
func TestRemoteEndpointKilled(t *testing.T) {
	a, b := apptest.RemoteChromium(t), apptest.RemoteChromium(t)
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	waiting, released := make(chan struct{}), make(chan struct{})
	var once sync.Once
	// alpha waits in its page for text that never comes; beta holds its
	// first model call until the test lets it go.
	srv.Script("executor",
		modeltest.Step{Times: -1, Match: modeltest.SystemContains("task alpha"), Func: func(r *modeltest.Request) modeltest.Reply {
			once.Do(func() { close(waiting) })
			return apptest.Call("wait", "text", "a text that never shows", "timeout_s", 30)
		}},
		modeltest.Step{Times: -1, Match: modeltest.SystemContains("task beta"), Func: func(r *modeltest.Request) modeltest.Reply {
			<-released
			return apptest.Done("beta is fine", true)
		}},
		apptest.QuoteExecutor(modeltest.SystemContains("task gamma"), 0, 0))
	srv.Script("planner", killedPlanner(s.URL))
	rr := startRemoteRun(t, srv, "three tasks", "--json", "--browser", a.WS, "--browser", b.HTTP)
	pool := rr.pool(t)
	<-waiting
	alpha := procOf(t, rr, "task alpha")
	hosts := map[string]*testenv.Remote{pool.Status()[0].Name: a, pool.Status()[1].Name: b}
	dead := hosts[pool.Where(alpha.Tab)]
	if dead == nil {
		t.Fatalf("alpha's tab %s is in no endpoint: %+v", alpha.Tab, pool.Status())
	}
	live := pool.Status()[0].Name
	if dead == a {
		live = pool.Status()[1].Name
	}
	dead.Kill()
	testkit.WaitFor(t, 20*time.Second, "alpha to fail", func() bool { return procOf(t, rr, "task alpha").State == agents.ProcFailed })
	close(released)
	testkit.WaitFor(t, 30*time.Second, "gamma to start", func() bool { return procOf(t, rr, "task gamma").Tab != "" })
	gamma := procOf(t, rr, "task gamma")
	if where := pool.Where(gamma.Tab); where != live {
		t.Errorf("gamma's tab is in %q, want the live endpoint %q", where, live)
	}
	if code := rr.wait(t); code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s\nstdout:\n%s", code, rr.errb.String(), rr.out.String())
	}
	checkKilledRun(t, rr, s)
}

// killedPlanner spawns alpha and beta, waits for any; once alpha is
// reported gone it spawns gamma, then waits for all and finishes.
func killedPlanner(site string) modeltest.Step {
	spawn := func(name string) modeltest.Reply {
		return apptest.Call("spawn", "task", "task "+name, "url", site+"/quote.html?name="+name)
	}
	return modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		made := apptest.Calls(r)
		switch {
		case r.ToolResults() == 0:
			return spawn("alpha")
		case r.ToolResults() == 1:
			return spawn("beta")
		case !strings.Contains(made, "gamma") && strings.Contains(r.Text(), "tab is gone"):
			return spawn("gamma")
		case strings.Contains(made, "gamma") && strings.Contains(r.LastText(), `"running":[]`):
			return apptest.Done("alpha lost its browser; "+strings.Join(modeltest.Summaries(r.Text()), "; "), true)
		case strings.Contains(made, "gamma"):
			return apptest.Call("wait", "mode", "all")
		}
		return apptest.Call("wait", "mode", "any")
	}}
}

// procOf is the run's process whose task is task (zero before it is
// spawned).
func procOf(t *testing.T, rr *remoteRun, task string) agents.ProcInfo {
	t.Helper()
	rr.mu.Lock()
	run := rr.run
	rr.mu.Unlock()
	for _, p := range run.Procs() {
		if p.Task == task {
			return p
		}
	}
	return agents.ProcInfo{}
}

// checkKilledRun checks the end of TestRemoteEndpointKilled: alpha failed
// with its tab gone, beta and gamma succeeded, gamma's quote was served.
func checkKilledRun(t *testing.T, rr *remoteRun, s *apptest.Site) {
	t.Helper()
	for task, want := range map[string]agents.ProcState{"task alpha": agents.ProcFailed, "task beta": agents.ProcDone, "task gamma": agents.ProcDone} {
		p := procOf(t, rr, task)
		if p.State != want {
			t.Errorf("%s ended %s (%q), want %s", task, p.State, p.Summary, want)
		}
		if task == "task alpha" && !strings.Contains(p.Summary, "tab is gone") {
			t.Errorf("alpha's summary does not say its tab is gone: %q", p.Summary)
		}
	}
	s.State(func(s *apptest.Site) {
		if s.Quotes != 1 {
			t.Errorf("the site served %d quotes, want 1 (gamma's)", s.Quotes)
		}
	})
	t.Log(fmt.Sprintf("alpha: %q", procOf(t, rr, "task alpha").Summary))
}
