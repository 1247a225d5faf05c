package browser

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A link opened in a new tab by a middle click or a Ctrl (or Cmd) click
// becomes a page target with no opener: Chromium keeps no window.opener
// for it. It carries its URL from the start, which a tab Open asks for
// (about:blank, then a navigation) does not, and nobody asked for it, so
// nobody adopts it but this: it becomes a tab like any other (TabOpened),
// unleased, in the background as in Chrome.

// openedInBackground reports whether a page target with no opener is one
// a page opened (a link in a new tab) rather than one Open is creating.
// Open holds creating for reading from its createTarget to the tab's
// registration, so once the lock is ours Open's own target is known.
// Caller holds creating.
func (b *Browser) openedInBackground(id, url string) bool {
	if url == "" || url == "about:blank" {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	_, known := b.tabs[id]
	return !known && !b.closed
}

// adoptBackground adopts a page target a link opened in a new tab. It
// runs in its own goroutine (never the read loop, which openedInBackground
// may wait on); a failure is logged and the page stays out of the list.
// It is called when the target appears and again when its URL is set
// (Chromium may announce a middle-clicked page blank first); creating,
// held through the adoption, makes the second call find it known.
func (b *Browser) adoptBackground(s *session, id, url string) {
	b.creating.Lock()
	defer b.creating.Unlock()
	if !b.openedInBackground(id, url) {
		return
	}
	if _, err := b.adopt(s.ctx, s, id, ""); err != nil {
		b.opts.Logf("tab opened in the background at %s: %v", url, err)
	}
}

// createTab creates a target and adopts it, holding creating so the
// target's creation event does not adopt it a second time.
func (b *Browser) createTab(ctx context.Context, s *session, p target.CreateTargetParams) (*Tab, error) {
	b.creating.RLock()
	defer b.creating.RUnlock()
	res, err := cdp.Call(ctx, chromedp.FromContext(s.ctx).Browser, target.CreateTarget, p)
	if err != nil {
		return nil, b.mapErr(err)
	}
	return b.adopt(ctx, s, string(res.TargetID), "")
}
