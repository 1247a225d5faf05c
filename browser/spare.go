package browser

import (
	"context"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Every tab Open makes is the one tab of a window of its own. A tab
// behind another in its window is drawn only when the front one draws: a
// page that opens a tab (window.open, a link with a target) puts it in
// front of its own window, and a still page there left the tabs behind
// it without frames, their scrolls, drags and screencasts stalled. The
// backgrounding flags (launch.go) do not help: such a tab is neither
// hidden (its page reads visible) nor throttled; its window just draws
// nothing new.
//
// A window costs Chromium more than a tab (BenchmarkOpenTab,
// window+navigate against tab+navigate), so a launched headless browser
// keeps one blank window created ahead, not attached and not listed
// (a page target at about:blank with no opener is adopted by nobody,
// background.go), and Open attaches it and loads its page. A headed
// browser would show that window, and a remote one is shared with others,
// so they create each window when asked.

// spareWindow is the window created ahead, or the one being created.
type spareWindow struct {
	mu sync.Mutex
	s  *session // the browser life id belongs to
	id string   // a blank window's target, "" when none is ready
	// making is closed once the window being created is ready (or has
	// failed); nil when none is being created.
	making chan struct{}
}

// keepsSpare reports whether the browser creates windows ahead.
func (b *Browser) keepsSpare() bool {
	return b.opts.RemoteURL == "" && !b.opts.Headed
}

// makeSpare creates the next blank window in the background, unless one
// is ready or on its way.
func (b *Browser) makeSpare(s *session) {
	if !b.keepsSpare() {
		return
	}
	w := &b.spare
	w.mu.Lock()
	if (w.id != "" && w.s == s) || w.making != nil {
		w.mu.Unlock()
		return
	}
	done := make(chan struct{})
	w.making = done
	w.mu.Unlock()
	go func() {
		defer close(done)
		id, err := b.createWindow(s)
		w.mu.Lock()
		w.making = nil
		if err == nil {
			w.s, w.id = s, id
		}
		w.mu.Unlock()
		if err != nil && !b.gone(s) {
			// Open creates its window itself then.
			b.opts.Logf("create a window ahead: %v", err)
		}
	}()
}

// createWindow creates a blank window and returns its target.
func (b *Browser) createWindow(s *session) (string, error) {
	ctx, cancel := context.WithTimeout(s.ctx, b.opts.CallTimeout)
	defer cancel()
	res, err := cdp.Call(ctx, chromedp.FromContext(s.ctx).Browser, target.CreateTarget,
		target.CreateTargetParams{URL: "about:blank", NewWindow: new(true)})
	if err != nil {
		return "", b.mapErr(err)
	}
	return string(res.TargetID), nil
}

// takeSpare returns the blank window created ahead for session s,
// waiting for one on its way; "" when there is none to have.
func (b *Browser) takeSpare(ctx context.Context, s *session) string {
	if !b.keepsSpare() {
		return ""
	}
	w := &b.spare
	w.mu.Lock()
	making := w.making
	w.mu.Unlock()
	if making != nil {
		select {
		case <-making:
		case <-ctx.Done():
			return ""
		}
	}
	w.mu.Lock()
	id, ok := w.id, w.s == s
	w.id = ""
	w.mu.Unlock()
	if !ok {
		return ""
	}
	return id
}

// openSpare attaches the blank window taken ahead as a new tab; nil when
// there is none, or it is gone (Open creates one then).
func (b *Browser) openSpare(ctx context.Context, s *session) *Tab {
	id := b.takeSpare(ctx, s)
	if id == "" {
		return nil
	}
	b.creating.RLock()
	defer b.creating.RUnlock()
	t, err := b.adopt(ctx, s, id, "")
	if err != nil {
		b.opts.Logf("attach the window created ahead: %v", err)
		return nil
	}
	return t
}
