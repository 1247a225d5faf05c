package mcpserver

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testkit"
)

// run_task on a fixture site: the site served one quote, the result holds
// the planner's summary and the agent's own result, and the progress
// notifications came in the run's order, each numbered above the last.
// The run is then a resource.
func TestMCPRunTask(t *testing.T) {
	for _, transport := range mcpTransports {
		t.Run(transport, func(t *testing.T) {
			h := newMCPHarness(t)
			s := apptest.NewSite(t)
			apptest.ScriptQuote(h.srv, s, 0)
			cs := h.connect(t, transport, nil)
			out, res := callRun(t, cs, map[string]any{"task": "get a quote from the North desk"})
			if !out.Success || len(out.Agents) != 1 || !strings.Contains(out.Agents[0].Summary, "quote 101") || !strings.Contains(out.Summary, "quote 101") {
				t.Fatalf("result: %+v", out)
			}
			if a := out.Agents[0]; !a.Success || a.State != string(agents.ProcDone) || a.Steps < 2 {
				t.Fatalf("agent result: %+v", a)
			}
			if txt := contentText(res); !strings.Contains(txt, "Run "+out.RunID+" done") || !strings.Contains(txt, "agent 1") {
				t.Fatalf("text result: %s", txt)
			}
			s.State(func(s *apptest.Site) {
				if s.Quotes != 1 {
					t.Errorf("the site served %d quotes", s.Quotes)
				}
			})
			checkProgressOrder(t, h, out.RunID)
			checkRunResource(t, cs, out.RunID, "get a quote from the North desk")
		})
	}
}

// checkProgressOrder wants the run's start, the agent starting, its click,
// its end and the run's end, in that order, with rising progress.
func checkProgressOrder(t *testing.T, h *mcpHarness, id string) {
	t.Helper()
	// The client handles notifications apart from the call's answer, so
	// the last may still be on its way when the call returns.
	end := "run " + id + ": done"
	testkit.WaitFor(t, 5*time.Second, "the run's end as progress", func() bool {
		return slices.ContainsFunc(h.messages(), func(m string) bool { return strings.HasPrefix(m, end) })
	})
	msgs := h.messages()
	want := []string{"run " + id + ": started", "agent 1 (pid 1) running", "agent 1 #1 click", "agent 1 (pid 1) done", "run " + id + ": done"}
	at := 0
	for _, m := range msgs {
		if at < len(want) && strings.HasPrefix(m, want[at]) {
			at++
		}
	}
	if at < len(want) {
		t.Fatalf("progress lacks %q in order; got:\n%s", want[at], strings.Join(msgs, "\n"))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := 1; i < len(h.progress); i++ {
		if h.progress[i].Progress <= h.progress[i-1].Progress || h.progress[i].ProgressToken != "run-1" {
			t.Fatalf("progress %d: %+v after %+v", i, h.progress[i], h.progress[i-1])
		}
	}
}

// checkRunResource wants the run listed and readable as vroom://runs/ID.
func checkRunResource(t *testing.T, cs *mcp.ClientSession, id, task string) {
	t.Helper()
	list, err := cs.ListResources(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(list.Resources, func(r *mcp.Resource) bool { return r.URI == runURI(id) }) {
		t.Fatalf("%s is not listed", runURI(id))
	}
	rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: runURI(id)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, task) || !strings.Contains(rr.Contents[0].Text, "click") {
		t.Fatalf("the run's resource: %+v", rr.Contents)
	}
	if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: runURIPrefix + "../settings"}); err == nil {
		t.Fatal("a resource outside runs/ was read")
	}
}

// stop_run mid-run: the agent is reading the page over and over, as a
// slow model does; once its first step is reported, stop_run ends the
// run, and run_task returns with the run stopped and the agent killed.
func TestMCPStopRun(t *testing.T) {
	for _, transport := range mcpTransports {
		t.Run(transport, func(t *testing.T) {
			h := newMCPHarness(t)
			s := apptest.NewSite(t)
			h.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "read the desk's page until told to stop", "url": s.URL + "/quote.html"}))
			h.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
				return modeltest.Slow(100*time.Millisecond, apptest.Call("read_page"))
			}})
			cs := h.connect(t, transport, nil)
			type ended struct {
				out runTaskResult
				err error
			}
			done := make(chan ended, 1)
			go func() {
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_task", Arguments: map[string]any{"task": "read the quote desk"}, Meta: mcp.Meta{"progressToken": 7}})
				var out runTaskResult
				if err == nil {
					b, _ := json.Marshal(res.StructuredContent)
					err = json.Unmarshal(b, &out)
				}
				done <- ended{out, err}
			}()
			id := ""
			testkit.WaitFor(t, 30*time.Second, "the agent's first step", func() bool {
				for _, m := range h.messages() {
					if r, ok := strings.CutPrefix(m, "run "); ok && id == "" {
						id, _, _ = strings.Cut(r, ":")
					}
					if strings.HasPrefix(m, "agent 1 #1 read_page") {
						return true
					}
				}
				return false
			})
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "stop_run", Arguments: map[string]any{"run_id": id}})
			if err != nil || res.IsError {
				t.Fatalf("stop_run %s: %v %s", id, err, contentText(res))
			}
			var e ended
			select {
			case e = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("run_task did not return after stop_run")
			}
			if e.err != nil || e.out.Success || !strings.Contains(e.out.Stopped, "stopped by the MCP client") || e.out.RunID != id {
				t.Fatalf("after stop_run: %+v, %v", e.out, e.err)
			}
			if len(e.out.Agents) != 1 || e.out.Agents[0].State != string(agents.ProcKilled) {
				t.Fatalf("the agent: %+v", e.out.Agents)
			}
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "stop_run", Arguments: map[string]any{"run_id": id}})
			if err != nil || !res.IsError || !strings.Contains(contentText(res), ErrNoSuchRunning.Error()) {
				t.Fatalf("stop_run of a finished run: %v %+v", err, res)
			}
		})
	}
}

// A model server that makes run_task wait long enough to notice is told
// to the client as progress while it lasts, and its end too.
func TestMCPRunTaskReportsModelWaits(t *testing.T) {
	h := newMCPHarness(t)
	h.s.env.EditModel = func(c *agents.ModelConfig) { c.SlowNotice = 300 * time.Millisecond }
	h.srv.Then("planner", modeltest.RateLimited(time.Second), apptest.Done("nothing to do", true))
	cs := h.connect(t, "stdio", nil)
	out, _ := callRun(t, cs, map[string]any{"task": "anything"})
	if !out.Success {
		t.Fatalf("result: %+v", out)
	}
	testkit.WaitFor(t, 5*time.Second, "the run's end as progress", func() bool {
		return slices.ContainsFunc(h.messages(), func(m string) bool { return strings.HasPrefix(m, "run "+out.RunID+": done") })
	})
	msgs := strings.Join(h.messages(), "\n")
	for _, want := range []string{"model server slow: waiting 1.0 s for planner, retry 1/3 (HTTP 429)", "model server answered planner"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("progress lacks %q:\n%s", want, msgs)
		}
	}
}
