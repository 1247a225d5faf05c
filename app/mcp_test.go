package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// The MCP must-shows (issue 13): the Go SDK's own client talks to
// `vroom mcp`'s server over both transports — in memory, as stdio does,
// and the real streamable HTTP handler on a loopback listener with its
// bearer token — against real Chromium, fixture sites and the scripted
// model.

// mcpTransports are the two ways a client reaches the server.
var mcpTransports = []string{"stdio", "http"}

// mcpHarness is one `vroom mcp` server and its scripted model.
type mcpHarness struct {
	srv   *modeltest.Server
	s     *mcpServer
	token string
	url   string // the HTTP endpoint, when served

	mu       sync.Mutex
	progress []*mcp.ProgressNotificationParams
	elicited []string
}

func newMCPHarness(t *testing.T) *mcpHarness {
	t.Helper()
	needBrowser(t)
	srv := modeltest.New(t)
	st := config.DefaultSettings()
	st.BaseURL, st.PlannerModel, st.ExecutorModel = srv.URL, "planner", "executor"
	ctx, cancel := context.WithCancel(context.Background())
	s := newMCPServer(ctx, mcpEnv{Settings: st, DataDir: t.TempDir(), Browser: testBrowser,
		Edit: func(c *agents.Config) { c.Floor = agents.FloorConfig{WordsPerMinute: 60000} }})
	t.Cleanup(func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		s.close(cctx)
		cancel()
	})
	return &mcpHarness{srv: srv, s: s}
}

// serveHTTP puts the server's real HTTP handler on a loopback listener.
func (h *mcpHarness) serveHTTP(t *testing.T) {
	t.Helper()
	tok, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h.s.httpHandler(tok))
	t.Cleanup(hs.Close)
	h.token, h.url = tok, hs.URL+"/mcp"
}

// bearer adds a token to every request of a client.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// connect connects a client over transport ("stdio" or "http"); elicit,
// when set, answers the server's elicitations (and declares the
// capability).
func (h *mcpHarness) connect(t *testing.T, transport string, elicit func(*mcp.ElicitRequest) *mcp.ElicitResult) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.progress = append(h.progress, r.Params)
	}}
	if elicit != nil {
		opts.ElicitationHandler = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			h.mu.Lock()
			h.elicited = append(h.elicited, r.Params.Message)
			h.mu.Unlock()
			return elicit(r), nil
		}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "vroom-test", Version: "1"}, opts)
	var tr mcp.Transport
	switch transport {
	case "stdio":
		ct, st := mcp.NewInMemoryTransports()
		ss, err := h.s.server.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		tr = ct
	case "http":
		if h.url == "" {
			h.serveHTTP(t)
		}
		tr = &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: &http.Client{Transport: bearer{h.token, http.DefaultTransport}}}
	}
	cs, err := c.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatalf("connect over %s: %v", transport, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// messages lists the progress messages so far.
func (h *mcpHarness) messages() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, len(h.progress))
	for i, p := range h.progress {
		out[i] = p.Message
	}
	return out
}

// callRun calls run_task and decodes its structured result.
func callRun(t *testing.T, cs *mcp.ClientSession, args map[string]any) (runTaskResult, *mcp.CallToolResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_task", Arguments: args, Meta: mcp.Meta{"progressToken": "run-1"}})
	if err != nil {
		t.Fatalf("run_task: %v", err)
	}
	var out runTaskResult
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || res.IsError {
		t.Fatalf("run_task returned %s (%v)", contentText(res), err)
	}
	return out, res
}

// contentText joins a result's text contents.
func contentText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// scriptQuote scripts a careful run on the quote desk: the planner sends
// one agent, which clicks "Get quote", reads until the quote shows and
// reports it.
func scriptQuote(srv *modeltest.Server, s *apptest.Site, delay time.Duration) {
	srv.Script("planner", apptest.PlannerScript(map[string]any{"task": "get a quote from the desk", "url": s.URL + "/quote.html?name=North"}))
	srv.Script("executor", apptest.QuoteExecutor(modeltest.Any(), delay, 1))
}

// run_task on a fixture site: the site served one quote, the result holds
// the planner's summary and the agent's own result, and the progress
// notifications came in the run's order, each numbered above the last.
// The run is then a resource.
func TestMCPRunTask(t *testing.T) {
	for _, transport := range mcpTransports {
		t.Run(transport, func(t *testing.T) {
			h := newMCPHarness(t)
			s := apptest.NewSite(t)
			scriptQuote(h.srv, s, 0)
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
	apptest.WaitFor(t, 5*time.Second, "the run's end as progress", func() bool {
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
			h.srv.Script("planner", apptest.PlannerScript(map[string]any{"task": "read the desk's page until told to stop", "url": s.URL + "/quote.html"}))
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
			apptest.WaitFor(t, 30*time.Second, "the agent's first step", func() bool {
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
