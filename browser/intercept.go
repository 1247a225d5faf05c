package browser

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A tab's Fetch domain is one set-up shared by what needs it. Chromium
// raises a site's request for credentials only for a request it
// intercepted, so every tab pauses its document requests (one round trip
// each) with auth challenges handled, and lets them go at once; a request
// guard pauses every request instead, and checks what is paused (but for
// the browser's own icon downloads, refused: icons.go). One pump
// per session answers its paused requests, so none is answered twice.
// The sessions are the tab's own and those of its out-of-process frames
// (targets.go), which get the same patterns and the same guard.

// docPattern pauses every document request before it is sent.
var docPattern = &fetch.RequestPattern{URLPattern: "*", ResourceType: network.ResourceTypeDocument, RequestStage: fetch.RequestStageRequest}

// intercept is a tab's Fetch set-up, under auth.mu.
type intercept struct {
	guard    *guardState             // nil without a guard
	patterns []*fetch.RequestPattern // the guard's; nil without one
	socks    socketHosts             // where a guarded tab's sockets may go
	// bound are the sessions that have the refusal binding, which stays
	// for the session's life once added.
	bound map[*chromedp.Target]bool
	// frames are the sessions of the tab's out-of-process frames, held
	// as the tab is.
	frames map[target.ID]*chromedp.Target
	// workers are the tab's dedicated workers, by their path's key
	// (workers.go), for a guard to wrap those already running.
	workers map[string]workerAt
}

// sessions are the tab's session and its frames'.
func (t *Tab) sessions() []*chromedp.Target {
	t.auth.mu.Lock()
	defer t.auth.mu.Unlock()
	out := []*chromedp.Target{t.target()}
	for _, s := range t.icpt.frames {
		out = append(out, s)
	}
	return out
}

// startIntercept enables the tab's Fetch set-up and starts its pump, which
// runs as long as the tab. Caller is attach.
func (t *Tab) startIntercept(ctx context.Context) error {
	return t.startPump(ctx, t.target())
}

// startPump enables Fetch on sess with the patterns of now and answers
// what it pauses until the session or the tab ends.
func (t *Tab) startPump(ctx context.Context, sess *chromedp.Target) error {
	// Subscribed before enabling, so no paused request is missed.
	paused, stop := sess.Subscribe(fetch.RequestPaused.Method)
	if err := t.applyFetchOn(ctx, sess); err != nil {
		stop()
		return err
	}
	go func() {
		defer stop()
		t.pump(sess, paused)
	}()
	return nil
}

// applyFetch enables Fetch with the patterns of now on every session of
// the tab. A frame's session that fails is logged: the frame may be going
// away, and the tab's own is what the caller's answer is about.
func (t *Tab) applyFetch(ctx context.Context) error {
	for i, s := range t.sessions() {
		err := t.applyFetchOn(ctx, s)
		if i == 0 && err != nil {
			return err
		}
		if err != nil && t.b.opts.Logf != nil {
			t.b.opts.Logf("tab %s: a frame's requests: %v", t.id, err)
		}
	}
	return nil
}

// applyFetchOn enables Fetch on one session with the patterns of now.
func (t *Tab) applyFetchOn(ctx context.Context, sess *chromedp.Target) error {
	t.auth.mu.Lock()
	patterns := t.icpt.patterns
	t.auth.mu.Unlock()
	if patterns == nil {
		patterns = []*fetch.RequestPattern{docPattern}
	}
	_, err := cdp.Call(ctx, sess, fetch.Enable, fetch.EnableParams{Patterns: patterns, HandleAuthRequests: new(true)})
	return err
}

// setGuard installs g, whose checks see what patterns pause.
func (t *Tab) setGuard(ctx context.Context, g *guardState, patterns []*fetch.RequestPattern) error {
	t.auth.mu.Lock()
	prev, prevPatterns := t.icpt.guard, t.icpt.patterns
	t.icpt.guard, t.icpt.patterns = g, patterns
	t.auth.mu.Unlock()
	if err := t.applyFetch(ctx); err != nil {
		t.auth.mu.Lock()
		if t.icpt.guard == g {
			t.icpt.guard, t.icpt.patterns = prev, prevPatterns
		}
		t.auth.mu.Unlock()
		return err
	}
	return nil
}

// dropGuard removes g (if it is still the one installed), waits for its
// checks under way, and pauses documents only again.
func (t *Tab) dropGuard(ctx context.Context, g *guardState) error {
	t.auth.mu.Lock()
	mine := t.icpt.guard == g
	if mine {
		t.icpt.guard, t.icpt.patterns = nil, nil
	}
	t.auth.mu.Unlock()
	g.wg.Wait()
	if !mine {
		return nil
	}
	if err := t.dropSockets(ctx); err != nil {
		return err
	}
	return t.applyFetch(ctx)
}

// pump answers each request sess paused: through the guard's check when
// one is installed, else at once. It runs in its own goroutine until the
// subscription closes with the session.
func (t *Tab) pump(sess *chromedp.Target, paused <-chan jsonv2.Value) {
	for {
		select {
		case v, ok := <-paused:
			if !ok {
				return
			}
			var ev fetch.EventRequestPaused
			if err := jsonv2.Unmarshal(v, &ev); err != nil || ev.Request == nil {
				continue
			}
			if t.browserIcon(&ev) {
				go t.refuseIcon(sess, &ev)
				continue
			}
			t.auth.mu.Lock()
			g := t.icpt.guard
			if g != nil {
				g.wg.Add(1)
			}
			t.auth.mu.Unlock()
			go func() {
				if g == nil {
					t.letGo(sess, &ev)
					return
				}
				defer g.wg.Done()
				t.answer(g.ctx, sess, &ev, g.check)
			}()
		case <-t.dead.Done():
			return
		}
	}
}

// letGo continues a paused request nobody checks. A tab that closed has
// nothing to continue.
func (t *Tab) letGo(sess *chromedp.Target, ev *fetch.EventRequestPaused) {
	ctx, cancel := context.WithTimeout(t.dead, guardWait)
	defer cancel()
	if _, err := cdp.Call(ctx, sess, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID}); err != nil && context.Cause(t.dead) == nil {
		t.b.opts.Logf("tab %s: let %s go: %v", t.id, ev.Request.URL, err)
	}
}
