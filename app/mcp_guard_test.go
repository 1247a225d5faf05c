package app

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"vroom/internal/modeltest"
)

// TestMCPEngineExfil: a tab the client drives gets the exfiltration guard
// an agent's tab gets. The page shows the person's email; its form sends
// it to another host (localhost, off the tab's site 127.0.0.1). A client
// without elicitation clicking "Continue" is refused: the request never
// reaches that host, and the result says what would have gone where. A
// form off the site that carries none of the person's data goes.
func TestMCPEngineExfil(t *testing.T) {
	var mu sync.Mutex
	var got []string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/collect" { // not the browser's favicon request
			mu.Lock()
			got = append(got, r.URL.RawQuery)
			mu.Unlock()
		}
		fmt.Fprint(w, "<title>Collected</title>thanks")
	}))
	t.Cleanup(collector.Close)
	off := strings.Replace(collector.URL, "127.0.0.1", "localhost", 1) + "/collect"
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>Account</title><p>Signed in as alice.liddell@example.com</p>
<form action="%[1]s"><input type="hidden" name="who" value="alice.liddell@example.com"><button>Continue</button></form>
<form action="%[1]s"><input type="hidden" name="q" value="weather"><button>Forecast</button></form>`, off)
	}))
	t.Cleanup(page.Close)

	h := newMCPHarness(t)
	cs := h.connect(t, "stdio", nil)
	var opened pageResult
	callTool(t, cs, "open", map[string]any{"url": page.URL + "/account"}, &opened)
	cont, forecast := modeltest.Ref(opened.Page, "button", "Continue"), modeltest.Ref(opened.Page, "button", "Forecast")
	if cont == "" || forecast == "" {
		t.Fatalf("open: %s", opened.Page)
	}
	var clicked actResult
	res := callTool(t, cs, "click", map[string]any{"tab": opened.Tab, "ref": cont}, &clicked)
	text := contentText(res)
	if !res.IsError || !strings.Contains(clicked.Denied, "your email") || !strings.Contains(clicked.Denied, "localhost") ||
		!strings.Contains(text, ErrNoElicitation.Error()) {
		t.Fatalf("the email sent off the site was not refused: %+v\n%s", clicked, text)
	}
	mu.Lock()
	leaked := len(got)
	mu.Unlock()
	if leaked != 0 {
		t.Fatalf("the other host was reached: %q", got)
	}
	res = callTool(t, cs, "click", map[string]any{"tab": opened.Tab, "ref": forecast}, &clicked)
	mu.Lock()
	defer mu.Unlock()
	if res.IsError || len(got) != 1 || got[0] != "q=weather" {
		t.Fatalf("a form without the person's data: %s; the other host got %q", contentText(res), got)
	}
}
