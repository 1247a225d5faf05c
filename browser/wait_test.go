package browser

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestWaitConditions: each condition, alone and together, met by a change
// the page makes later (its own timers, as a server push would).
func TestWaitConditions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		later []string
		w     WaitFor
		says  string
	}{
		{"text", []string{"text"}, WaitFor{Text: "order CONFIRMED"}, `text "order CONFIRMED" appeared`},
		{"gone", []string{"gone"}, WaitFor{Gone: "Loading your order"}, `text "Loading your order" went away`},
		{"url", []string{"url"}, WaitFor{URL: "step=2"}, `the URL contains "step=2"`},
		{"query", []string{"control"}, WaitFor{Query: "receipt"}, `a control matching "receipt" appeared (Download receipt)`},
		{"all", []string{"text", "url"}, WaitFor{Text: "Order confirmed", URL: "step=2"}, `text "Order confirmed" appeared and the URL contains "step=2"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tab := openTab(t, "/wait.html")
			ctx := tctx(t)
			for i, k := range c.later {
				eval[bool](t, tab, `later('`+k+`', `+[]string{"300", "600"}[i]+`)`)
			}
			r, err := tab.Wait(ctx, c.w, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Met || r.Condition != c.says || r.Took > 4*time.Second {
				t.Errorf("wait %+v: %+v", c.w, r)
			}
		})
	}
}

// TestWaitIdle: with no condition, a wait ends once the page's requests
// are done and the DOM has been quiet for 500 ms; a request that never
// ends makes it time out with the request counted.
func TestWaitIdle(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/wait.html")
	ctx := tctx(t)
	eval[bool](t, tab, `later('fetch', 0)`)
	r, err := tab.Wait(ctx, WaitFor{}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	slot := eval[string](t, tab, `document.getElementById('slot').textContent`)
	t.Logf("idle: %+v", r)
	if !r.Met || r.Pending != 0 || slot != "fetched" || r.Condition != "the page is idle" {
		t.Errorf("idle: %+v, slot %q", r, slot)
	}
	if r.Took < 1000*time.Millisecond {
		t.Errorf("idle after %v: the 600 ms request and 500 ms of quiet cannot both have passed", r.Took)
	}
	eval[bool](t, tab, `later('hang', 0)`)
	r, err = tab.Wait(ctx, WaitFor{}, 800*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if r.Met || r.Pending != 1 || !strings.Contains(r.Condition, "did not become idle (1 request in flight)") {
		t.Errorf("a hanging request: %+v", r)
	}
}

// TestWaitTimeout: a condition that never holds ends at the timeout with
// Met false and no error, saying what did not happen.
func TestWaitTimeout(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/wait.html")
	ctx := tctx(t)
	r, err := tab.Wait(ctx, WaitFor{Text: "never"}, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if r.Met || r.Condition != `text "never" did not appear` || r.Took < 300*time.Millisecond || r.Took > 2*time.Second {
		t.Errorf("timeout: %+v", r)
	}
	for _, c := range []struct{ in, want time.Duration }{{0, 10 * time.Second}, {-time.Second, 10 * time.Second}, {time.Minute, 30 * time.Second}, {2 * time.Second, 2 * time.Second}} {
		if got := waitTimeout(c.in); got != c.want {
			t.Errorf("timeout %v: %v, want %v", c.in, got, c.want)
		}
	}
}

// TestWaitNavigation: a wait survives a navigation and is met in the new
// document.
func TestWaitNavigation(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/wait.html")
	ctx := tctx(t)
	eval[bool](t, tab, `later('nav', 200)`)
	r, err := tab.Wait(ctx, WaitFor{Text: "Arrived"}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Met || !strings.HasSuffix(tab.Info().URL, "/waitnext.html") && !strings.HasSuffix(eval[string](t, tab, `location.pathname`), "/waitnext.html") {
		t.Errorf("across a navigation: %+v", r)
	}
}

// TestWaitErrors: an ended context and a closed tab are errors; while a
// wait runs, the tab answers other calls.
func TestWaitErrors(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/wait.html")
	done := make(chan error, 1)
	go func() {
		_, err := tab.Wait(tctx(t), WaitFor{Text: "never"}, 3*time.Second)
		done <- err
	}()
	if _, err := tab.Observe(tctx(t), ObserveOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Errorf("the wait ended before an observation during it could run: %v", err)
	default:
	}
	ctx, cancel := context.WithTimeout(tctx(t), 200*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	if _, err := tab.Wait(ctx, WaitFor{Text: "never"}, 5*time.Second); !errors.Is(err, context.DeadlineExceeded) || time.Since(t0) > 2*time.Second {
		t.Errorf("the caller's deadline: %v after %v", err, time.Since(t0))
	}
	if err := tab.Close(tctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrTabClosed) {
		t.Errorf("a wait on a tab closed under it: %v", err)
	}
	if _, err := tab.Wait(tctx(t), WaitFor{Text: "x"}, time.Second); !errors.Is(err, ErrTabClosed) {
		t.Errorf("closed tab: %v", err)
	}
}

// TestWaitQueryInFrame: a control that appears inside an iframe added
// late (a consent manager's, another site's page) ends a wait for it, as
// one in the page itself does.
func TestWaitQueryInFrame(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/framed-consent.html?late=400&src="+crossSite()+"/consent.html")
	r, err := tab.Wait(tctx(t), WaitFor{Query: "Accept all"}, 10*time.Second)
	if err != nil || !r.Met || !strings.Contains(r.Condition, `"Accept all" appeared`) {
		t.Fatalf("wait for a control in a late iframe: %+v, %v", r, err)
	}
}

// TestFrameNavigationIsNotThePages: an action that makes an iframe load
// another page is not the page navigating: it settles in the page, as
// any other change, without waiting for a load of the top document.
func TestFrameNavigationIsNotThePages(t *testing.T) {
	t.Parallel()
	// Same origin: the frame runs in the page's process, so its load is
	// reported on the tab's own session, as the page's is.
	tab, ctx := framedConsent(t, "src=/consent.html", "Accept all")
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tab.Click(ctx, find(t, o, "button", "Reload the frame").Ref)
	if err != nil || r.Navigated || !r.Changed || r.Took > 2*time.Second {
		t.Fatalf("reload the frame: %v (took %v), %v", r, r.Took, err)
	}
}
