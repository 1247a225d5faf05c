package mcpserver

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// answer is an elicitation handler that answers every confirmation with
// the action ("accept", "decline") and, accepted, the decision.
func answer(action, decision string) func(*mcp.ElicitRequest) *mcp.ElicitResult {
	return func(*mcp.ElicitRequest) *mcp.ElicitResult {
		r := &mcp.ElicitResult{Action: action}
		if action == "accept" {
			r.Content = map[string]any{"decision": decision}
		}
		return r
	}
}

// An irreversible action in a run_task run ("Place order", the shop
// fixture), as a careful model acts: it clicks, and reports honestly when
// refused. A client without elicitation has it denied, and the agent is
// told why; a client whose user declines has it denied; one whose user
// allows it once has the order placed, once.
func TestMCPRunIrreversible(t *testing.T) {
	cases := []struct {
		name      string
		transport string
		elicit    func(*mcp.ElicitRequest) *mcp.ElicitResult
		orders    int
		why       string // in the run's log, when denied
	}{
		{"no elicitation", "stdio", nil, 0, ErrNoElicitation.Error()},
		{"declined", "http", answer("decline", ""), 0, "denied by the user"},
		{"allowed once", "stdio", answer("accept", answerAllowOnce), 1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newMCPHarness(t)
			s := apptest.NewSite(t)
			apptest.ScriptBuyer(h.srv, s)
			cs := h.connect(t, c.transport, c.elicit)
			out, _ := callRun(t, cs, map[string]any{"task": "buy the mug in my cart"})
			s.State(func(s *apptest.Site) {
				if s.Orders != c.orders {
					t.Fatalf("%d orders placed, want %d (result %+v)", s.Orders, c.orders, out)
				}
			})
			h.mu.Lock()
			asked := h.elicited
			h.mu.Unlock()
			if c.elicit != nil && (len(asked) != 1 || !strings.Contains(asked[0], "Place order")) {
				t.Fatalf("the user was asked %q", asked)
			}
			if c.orders == 1 {
				if !out.Success {
					t.Fatalf("allowed, the run failed: %+v", out)
				}
				return
			}
			if out.Success || len(out.Agents) != 1 || !strings.Contains(out.Agents[0].Summary, "did not place the order") {
				t.Fatalf("denied, the result: %+v", out)
			}
			rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: runURI(out.RunID)})
			if err != nil || !strings.Contains(rr.Contents[0].Text, c.why) {
				t.Fatalf("the run's log does not say %q: %v\n%s", c.why, err, rr.Contents[0].Text)
			}
		})
	}
}

// callTool calls a tool and returns its result's text and structured
// content.
func callTool(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

var refRE = regexp.MustCompile(`(e\d+) button "Place order"`)

// The engine tools drive one tab as the agents do: open gives the tab and
// the compact observation, observe searches, type is verified, the
// screenshot is an image. "Place order" is irreversible: without
// elicitation it is refused with the reason and nothing is ordered; with
// the user allowing it once it is performed once.
func TestMCPEngineTools(t *testing.T) {
	for _, c := range []struct {
		transport string
		elicit    func(*mcp.ElicitRequest) *mcp.ElicitResult
	}{{"http", nil}, {"stdio", answer("accept", answerAllowOnce)}} {
		t.Run(c.transport, func(t *testing.T) {
			h := newMCPHarness(t)
			s := apptest.NewSite(t)
			cs := h.connect(t, c.transport, c.elicit)
			var page pageResult
			callTool(t, cs, "open", map[string]any{"url": s.URL + "/shop.html"}, &page)
			m := refRE.FindStringSubmatch(page.Page)
			if page.Tab == "" || m == nil || !strings.Contains(page.Title, "Checkout") {
				t.Fatalf("open: %+v", page)
			}
			var waited waitResult
			callTool(t, cs, "wait", map[string]any{"tab": page.Tab, "text": "Blue mug", "timeout_s": 5}, &waited)
			if !waited.Met {
				t.Fatalf("wait text=Blue mug: %+v", waited)
			}
			var found pageResult
			callTool(t, cs, "observe", map[string]any{"tab": page.Tab, "query": "Delivery"}, &found)
			note := modeltest.Ref(found.Page, "textbox", "Delivery note")
			if note == "" || strings.Contains(found.Page, "Card number") {
				t.Fatalf("observe query=Delivery: %s", found.Page)
			}
			var typed actResult
			callTool(t, cs, "type", map[string]any{"tab": page.Tab, "ref": note, "text": "leave at the door"}, &typed)
			if !typed.Effect || typed.Denied != "" {
				t.Fatalf("type: %+v", typed)
			}
			shot := callTool(t, cs, "screenshot", map[string]any{"tab": page.Tab}, nil)
			if img, ok := shot.Content[0].(*mcp.ImageContent); !ok || img.MIMEType != "image/png" || len(img.Data) < 1000 {
				t.Fatalf("screenshot: %+v", shot.Content)
			}
			var clicked actResult
			res := callTool(t, cs, "click", map[string]any{"tab": page.Tab, "ref": m[1]}, &clicked)
			want := 1
			if c.elicit == nil {
				want = 0
				if !res.IsError || !strings.Contains(contentText(res), ErrNoElicitation.Error()) || !strings.Contains(contentText(res), "Place order") {
					t.Fatalf("click without elicitation: %s", contentText(res))
				}
			} else if res.IsError || !clicked.Effect || !strings.Contains(clicked.Changes, "Order placed") {
				t.Fatalf("click allowed: %s", contentText(res))
			}
			s.State(func(s *apptest.Site) {
				if s.Orders != want {
					t.Fatalf("%d orders, want %d", s.Orders, want)
				}
			})
			var closed closeResult
			callTool(t, cs, "close", map[string]any{"tab": page.Tab}, &closed)
			if res := callTool(t, cs, "observe", map[string]any{"tab": page.Tab}, nil); !closed.Closed || !res.IsError {
				t.Fatalf("observe after close: %s", contentText(res))
			}
		})
	}
}

// Every HTTP request needs the token printed at start: none or a wrong one
// gets 401, and a client with a wrong one cannot connect.
func TestMCPBearerToken(t *testing.T) {
	h := newMCPHarness(t)
	h.serveHTTP(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, auth := range []string{"", "Bearer wrong", "Bearer " + h.token + "x", h.token} {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", h.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("Authorization %q: status %d", auth, resp.StatusCode)
		}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "intruder", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: &http.Client{Transport: bearer{"wrong", http.DefaultTransport}}}
	if cs, err := c.Connect(t.Context(), tr, nil); err == nil {
		cs.Close()
		t.Fatal("a client with a wrong token connected")
	}
	cs := h.connect(t, "http", nil)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 4+len(agents.PageTools()) {
		t.Fatalf("tools with the token: %v, %v", tools, err)
	}
}
