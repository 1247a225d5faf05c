package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/internal/apptest"
	"vroom/app/remote"
	"vroom/internal/modeltest"
)

// newRemoteMCPHarness is vroom mcp whose settings name remote browsers:
// the server's tabs, the client's and its runs', open in a pool over
// them, connected before the server starts as vroom mcp connects it.
func newRemoteMCPHarness(t *testing.T, endpoints ...string) (*mcpHarness, *remote.Pool) {
	t.Helper()
	srv := modeltest.New(t)
	st := config.DefaultSettings()
	st.BaseURL, st.PlannerModel, st.ExecutorModel = srv.URL, "planner", "executor"
	st.Browser.Endpoints = endpoints
	ctx, cancel := context.WithCancel(context.Background())
	pool, err := remote.New(ctx, endpoints, remote.Options{})
	if err == nil {
		err = pool.Connect(ctx)
	}
	if err != nil {
		cancel()
		t.Fatalf("the remote browsers: %v", err)
	}
	s := New(ctx, Env{Settings: st, DataDir: t.TempDir(), Endpoints: pool,
		Edit: func(c *agents.Config) { c.Floor = agents.FloorConfig{WordsPerMinute: 60000} }})
	t.Cleanup(func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		s.Close(cctx)
		cancel()
		pool.Close()
	})
	return &mcpHarness{srv: srv, s: s}, pool
}

// TestMCPRemoteEndpoints: with two remote browsers in the settings —
// loopback Chromiums, one by its http:// address, one by its ws:// URL —
// run_task's two agents get their tabs there, one in each, as vroom run's
// would; the client's own tab (open) is in one of them too.
func TestMCPRemoteEndpoints(t *testing.T) {
	a, b := apptest.RemoteChromium(t), apptest.RemoteChromium(t)
	h, pool := newRemoteMCPHarness(t, a.HTTP, b.WS)
	s := apptest.NewSite(t)
	var spawns []map[string]any
	for _, n := range []string{"North", "South"} {
		task := "get a quote from the " + n + " desk"
		spawns = append(spawns, map[string]any{"task": task, "url": s.URL + "/quote.html?name=" + n})
		h.srv.Script("executor", apptest.QuoteExecutor(modeltest.SystemContains(task), 0, 0))
	}
	h.srv.Script("planner", modeltest.PlannerScript(spawns...))
	cs := h.connect(t, "stdio", nil)
	out, _ := callRun(t, cs, map[string]any{"task": "get two quotes", "max_agents": 2})
	if !out.Success || len(out.Agents) != 2 {
		t.Fatalf("result: %+v", out)
	}
	st := pool.Status()
	if len(st) != 2 || st[0].Opened < 1 || st[1].Opened < 1 {
		t.Fatalf("tabs per endpoint: %+v; want the run's in both", st)
	}
	s.State(func(s *apptest.Site) {
		if s.Quotes != 2 {
			t.Errorf("the site served %d quotes, want 2", s.Quotes)
		}
	})
	var page pageResult
	callTool(t, cs, "open", map[string]any{"url": s.URL + "/quote.html?name=East"}, &page)
	if where := pool.Where(page.Tab); where == "" || !strings.Contains(page.Page, "Get quote") {
		t.Errorf("the client's tab %s is in no remote browser (%q): %s", page.Tab, where, page.Page)
	}
	t.Logf("endpoints: %+v", pool.Status())
}
