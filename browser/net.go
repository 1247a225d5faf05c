package browser

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

//go:embed netwatch.js
var netwatchJS string

// netBound bounds the part of an action's settle that waits for requests
// and short timers the action started: a page that keeps loading longer
// is reported as still loading rather than waited for.
const netBoundMs = 2000

// instrument installs netwatch.js in the main world of every document of a
// session (the tab's, or an out-of-process iframe's), once: registered for
// new documents and run at once in the current ones. The script guards
// itself, so running it twice in one document does nothing. Caller holds
// t.op.
func (t *Tab) instrument(ctx context.Context, sess *chromedp.Target) error {
	if t.netOn[sess] {
		return nil
	}
	_, err := cdp.Call(ctx, sess, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: netwatchJS, RunImmediately: new(true),
	})
	if err != nil {
		return fmt.Errorf("instrument the page's network: %w", err)
	}
	t.netOn[sess] = true
	return nil
}
