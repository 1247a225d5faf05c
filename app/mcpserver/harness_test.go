package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/internal/apptest"
	"vroom/browser"
	"vroom/internal/modeltest"
)

// The harness of mcpserver's tests: the Go SDK's own client talks to
// the server over both transports — in memory, as stdio does,
// and the real streamable HTTP handler on a loopback listener with its
// bearer token — against real Chromium, fixture sites and the scripted
// model.

// mcpTransports are the two ways a client reaches the server.
var mcpTransports = []string{"stdio", "http"}

// mcpHarness is one `vroom mcp` server and its scripted model.
type mcpHarness struct {
	srv   *modeltest.Server
	s     *Server
	token string
	url   string // the HTTP endpoint, when served

	mu       sync.Mutex
	progress []*mcp.ProgressNotificationParams
	elicited []string
}

func newMCPHarness(t testing.TB, edits ...func(*Env)) *mcpHarness {
	t.Helper()
	needBrowser(t)
	srv := modeltest.New(t)
	st := config.DefaultSettings()
	st.BaseURL, st.PlannerModel, st.ExecutorModel = srv.URL, "planner", "executor"
	ctx, cancel := context.WithCancel(context.Background())
	env := Env{Settings: st, DataDir: t.TempDir(), Browser: testBrowser,
		Edit: func(c *agents.Config) { c.Floor = agents.FloorConfig{WordsPerMinute: 60000} }}
	for _, e := range edits {
		e(&env)
	}
	s := New(ctx, env)
	t.Cleanup(func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		s.Close(cctx)
		cancel()
	})
	return &mcpHarness{srv: srv, s: s}
}

// serveHTTP puts the server's real HTTP handler on a loopback listener.
func (h *mcpHarness) serveHTTP(t testing.TB) {
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
func (h *mcpHarness) connect(t testing.TB, transport string, elicit func(*mcp.ElicitRequest) *mcp.ElicitResult) *mcp.ClientSession {
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

// testBrowser is the test binary's one Chromium; every test opens its own
// tabs.
var testBrowser *browser.Browser

func TestMain(m *testing.M) { os.Exit(apptest.Main(m, &testBrowser)) }

// needBrowser skips a test without Chromium, except in CI where it fails.
func needBrowser(tb testing.TB) {
	tb.Helper()
	apptest.NeedBrowser(tb, testBrowser)
}
