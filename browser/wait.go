package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
)

// Wait's timeouts: the default for a zero or negative one, and the most
// it accepts.
const (
	DefaultWaitTimeout = 10 * time.Second
	MaxWaitTimeout     = 30 * time.Second
)

// idleQuiet is how long the DOM must stay still, with no request in
// flight, for a page to count as idle.
const idleQuiet = 500 * time.Millisecond

// WaitFor is what Wait waits for. Every field set must hold at once; with
// none set, Wait waits for the page to be idle: no request in flight, the
// document loaded, and the DOM quiet for 500 ms.
type WaitFor struct {
	// Text: the page's visible text contains it.
	Text string `json:"text,omitempty"`
	// Gone: the page's visible text no longer contains it.
	Gone string `json:"gone,omitempty"`
	// URL: the page's URL contains it.
	URL string `json:"url,omitempty"`
	// Query: a visible control matches it, as ObserveOptions.Query does.
	Query string `json:"query,omitempty"`
}

// WaitResult is how a wait ended. A timeout is not an error: Met is false
// and Condition says what did not happen.
type WaitResult struct {
	Met bool `json:"met"`
	// Condition says what was waited for and how it ended, as a model
	// reads it: `text "Order confirmed" appeared`, or on a timeout
	// `text "Order confirmed" did not appear`.
	Condition string        `json:"condition"`
	Took      time.Duration `json:"took"`
	// Pending counts the page's requests still in flight at the end.
	Pending int `json:"pending"`
}

// waitAnswer is the page's answer to waitFor.
type waitAnswer struct {
	Met     bool            `json:"met"`
	Parts   map[string]bool `json:"parts"`
	Found   *string         `json:"found"`
	Pending int             `json:"pending"`
}

// Wait waits, driven by the page's events, until w holds or timeout passes
// (zero or negative: DefaultWaitTimeout; more than MaxWaitTimeout is cut to
// it). It survives navigations: each new document is checked in turn. It
// returns an error only for a closed or crashed tab, an ended ctx, or a
// wait that cannot run in the page; a timeout is a result with Met false.
// The tab stays free for other calls meanwhile (the person's input, an
// observation).
func (t *Tab) Wait(ctx context.Context, w WaitFor, timeout time.Duration) (WaitResult, error) {
	timeout = waitTimeout(timeout)
	start := time.Now()
	// The call's own deadline lies past the wait's, so begin adds no
	// shorter CallTimeout and the page's answer at the deadline arrives.
	wctx, cancelW := context.WithTimeout(ctx, timeout+5*time.Second)
	defer cancelW()
	cctx, cancel, err := t.begin(wctx)
	if err != nil {
		return WaitResult{}, fmt.Errorf("wait %s: %w", t.id, err)
	}
	defer cancel()
	ans, err := t.waitAll(cctx, w, start.Add(timeout))
	res := WaitResult{Met: ans.Met, Condition: describeWait(w, ans), Took: time.Since(start), Pending: ans.Pending}
	if err != nil {
		if ctx.Err() != nil {
			return res, fmt.Errorf("wait %s: %w", t.id, context.Cause(ctx))
		}
		return res, fmt.Errorf("wait %s: %w", t.id, t.fail(cctx, err))
	}
	return res, nil
}

// waitTimeout is the timeout a wait uses for the one asked for.
func waitTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultWaitTimeout
	}
	return min(d, MaxWaitTimeout)
}

// waitLoop runs the in-page wait in the current document until it answers
// or the deadline passes; a document that goes away under it (a
// navigation) is replaced by the next one, waited for in its own world.
func (t *Tab) waitLoop(ctx context.Context, w WaitFor, deadline time.Time) (waitAnswer, error) {
	cond := map[string]any{"text": w.Text, "gone": w.Gone, "url": w.URL, "query": w.Query}
	if w == (WaitFor{}) {
		cond = map[string]any{"idle": true}
	}
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return waitAnswer{}, nil
		}
		// Subscribed before the call, so a navigation that ends it is
		// not missed.
		ans, done, err := t.waitDocument(ctx, cond, left)
		if done {
			return ans, err
		}
	}
}

// waitDocument runs the in-page wait in the current document; when that
// document went away under it, it waits for the next one to commit and
// reports not done. The subscription lasts until then: stopped at the
// call's answer, it would drop the navigation it was made to hear, and
// the loop would spin on a document not there yet.
func (t *Tab) waitDocument(ctx context.Context, cond map[string]any, left time.Duration) (ans waitAnswer, done bool, err error) {
	nav, stop := t.target().Subscribe("Page.frameNavigated")
	defer stop()
	ans, err = t.waitOnce(ctx, cond, left)
	if err == nil || ctx.Err() != nil || context.Cause(t.dead) != nil || !goneDocument(err) {
		return ans, true, err
	}
	timer := time.NewTimer(left)
	defer timer.Stop()
	select {
	case <-nav:
		return waitAnswer{}, false, nil
	case <-timer.C:
		return waitAnswer{}, true, nil
	case <-ctx.Done():
		return waitAnswer{}, true, context.Cause(ctx)
	}
}

// waitOnce runs waitFor in the top frame's current world. t.op is held only
// to find the world: a wait of many seconds must not hold the tab.
func (t *Tab) waitOnce(ctx context.Context, cond map[string]any, left time.Duration) (waitAnswer, error) {
	t.op.Lock()
	w, _, err := t.mainWorld(ctx)
	t.op.Unlock()
	if err != nil {
		return waitAnswer{}, err
	}
	return t.waitIn(ctx, w, cond, left)
}

// waitIn runs waitFor in world w for at most left.
func (t *Tab) waitIn(ctx context.Context, w *world, cond map[string]any, left time.Duration) (waitAnswer, error) {
	var ans waitAnswer
	expr, err := callExpr("waitFor", cond, left.Milliseconds())
	if err != nil {
		return ans, err
	}
	// Not evalIn: it may forget a world, which needs t.op.
	if err := boot(ctx, w); err != nil {
		return ans, err
	}
	res, err := cdp.Call(ctx, w.sess, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ContextID: w.ctxID, ReturnByValue: new(true), AwaitPromise: new(true), Silent: new(true),
	})
	if err != nil {
		return ans, err
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		return ans, fmt.Errorf("page script: %s", exceptionText(res.ExceptionDetails))
	}
	if err := json.Unmarshal(res.Result.Value, &ans); err != nil {
		return ans, err
	}
	return ans, nil
}

// goneDocument reports whether err says the world's document went away
// under the call (a navigation), as Chromium words it.
func goneDocument(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Execution context was destroyed") || strings.Contains(msg, "Cannot find context") || strings.Contains(msg, "navigated or closed")
}

// describeWait names the conditions and how each ended.
func describeWait(w WaitFor, a waitAnswer) string {
	if w == (WaitFor{}) {
		if a.Met {
			return "the page is idle"
		}
		return fmt.Sprintf("the page did not become idle (%d %s in flight)", a.Pending, plural(a.Pending, "request", "requests"))
	}
	var parts []string
	add := func(key, met, unmet string) {
		if a.Parts[key] || a.Met {
			parts = append(parts, met)
		} else {
			parts = append(parts, unmet)
		}
	}
	if w.Text != "" {
		add("text", fmt.Sprintf("text %q appeared", w.Text), fmt.Sprintf("text %q did not appear", w.Text))
	}
	if w.Gone != "" {
		add("gone", fmt.Sprintf("text %q went away", w.Gone), fmt.Sprintf("text %q is still there", w.Gone))
	}
	if w.URL != "" {
		add("url", fmt.Sprintf("the URL contains %q", w.URL), fmt.Sprintf("the URL does not contain %q", w.URL))
	}
	if w.Query != "" {
		met := fmt.Sprintf("a control matching %q appeared", w.Query)
		if a.Found != nil && *a.Found != "" {
			met = fmt.Sprintf("a control matching %q appeared (%s)", w.Query, clipText(*a.Found, 60))
		}
		add("query", met, fmt.Sprintf("no control matching %q appeared", w.Query))
	}
	return strings.Join(parts, " and ")
}
