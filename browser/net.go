package browser

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

//go:embed netwatch.js
var netwatchJS string

// netBound bounds the part of an action's settle that waits for requests
// and short timers the action started: a page that keeps loading longer
// is reported as still loading rather than waited for.
const netBoundMs = 2000

// instrument prepares every document of a session (the tab's, or an
// out-of-process iframe's), once: netwatch.js in the main world, registered
// for new documents and run at once in the current ones (it guards itself,
// so running it twice in one document does nothing); and the walker in its
// own world as each new document starts, so the first look at a page it
// loads neither makes the world nor compiles the walker. fresh reports that
// the session was prepared by this call: its current documents lack the
// walker. Caller holds t.op.
func (t *Tab) instrument(ctx context.Context, sess *chromedp.Target) (fresh bool, err error) {
	if t.netOn[sess] {
		return false, nil
	}
	if _, err := cdp.Call(ctx, sess, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: netwatchJS, RunImmediately: new(true),
	}); err != nil {
		return false, fmt.Errorf("instrument the page's network: %w", err)
	}
	if sess == t.target() {
		if _, err := cdp.Call(ctx, sess, runtime.AddBinding, runtime.AddBindingParams{Name: lookBinding, ExecutionContextName: worldName}); err != nil {
			return false, fmt.Errorf("hear the walker of new documents: %w", err)
		}
	}
	if _, err := cdp.Call(ctx, sess, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: walkerDocJS, WorldName: worldName,
	}); err != nil {
		return false, fmt.Errorf("install the walker for new documents: %w", err)
	}
	t.netOn[sess] = true
	return true, nil
}
