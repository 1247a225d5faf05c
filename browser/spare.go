package browser

import (
	"context"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Every tab Open makes opens in a window of its own. A tab
// behind another in its window is drawn only when the front one draws: a
// page that opens a tab (window.open, a link with a target) puts it in
// front of its own window, and a still page there left the tabs behind
// it without frames (about one a second), their scrolls, drags and
// waits for a frame stalled. Chromium's backgrounding switches
// (chromedp's defaults, launch.go) do not help: such a tab is neither
// hidden (its page reads visible and focused) nor throttled (its timers
// run on time); its window just draws nothing new.
//
// A window costs Chromium more than a tab (BenchmarkOpenTab,
// window+navigate against tab+navigate), so a launched headless browser
// keeps one blank window created ahead, attached but neither listed nor
// announced, and Open lists it and loads its page. It is created once an
// Open has loaded, not while it attaches: a window being created held up
// the browser's answers to the attach two to three times as long. A
// headed browser would show that window, and a remote one is shared with
// others, so they create each window when asked.

// spareWindow is the window created ahead, or the one being created.
type spareWindow struct {
	mu  sync.Mutex
	s   *session // the browser life tab belongs to
	tab *Tab     // a blank window's tab, attached and unlisted; nil when none is ready
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
	if (w.tab != nil && w.s == s) || w.making != nil {
		w.mu.Unlock()
		return
	}
	done := make(chan struct{})
	w.making = done
	w.mu.Unlock()
	go func() {
		defer close(done)
		t, err := b.createWindow(s)
		w.mu.Lock()
		w.making = nil
		if err == nil {
			w.s, w.tab = s, t
		}
		w.mu.Unlock()
		if err != nil && !b.gone(s) {
			// Open creates its window itself then.
			b.opts.Logf("create a window ahead: %v", err)
		}
	}()
}

// createWindow creates a blank window and attaches its tab, known to the
// browser (its events reach it) but not listed.
func (b *Browser) createWindow(s *session) (*Tab, error) {
	ctx, cancel := context.WithTimeout(s.ctx, b.opts.CallTimeout)
	defer cancel()
	t, err := b.registerWindow(ctx, s)
	if err != nil {
		return nil, err
	}
	if err := t.attach(ctx); err != nil {
		b.drop(t.id, err)
		return nil, fmt.Errorf("attach: %w", err)
	}
	return t, nil
}

// registerWindow creates the window's target and its Tab, holding
// creating so the target's creation event does not adopt it.
func (b *Browser) registerWindow(ctx context.Context, s *session) (*Tab, error) {
	b.creating.RLock()
	defer b.creating.RUnlock()
	res, err := cdp.Call(ctx, chromedp.FromContext(s.ctx).Browser, target.CreateTarget,
		target.CreateTargetParams{URL: "about:blank", NewWindow: new(true)})
	if err != nil {
		return nil, b.mapErr(err)
	}
	id := string(res.TargetID)
	tctx, tcancel := chromedp.NewContext(s.ctx, chromedp.WithTargetID(res.TargetID))
	t := newTab(b, s, id, tctx, tcancel)
	b.mu.Lock()
	ended := b.closed || b.run != s
	if !ended {
		b.tabs[id] = t
	}
	b.mu.Unlock()
	if ended {
		tcancel()
		return nil, ErrBrowserClosed
	}
	return t, nil
}

// takeSpare returns the blank window created ahead for session s,
// waiting for one on its way; nil when there is none to have.
func (b *Browser) takeSpare(ctx context.Context, s *session) *Tab {
	if !b.keepsSpare() {
		return nil
	}
	w := &b.spare
	w.mu.Lock()
	making := w.making
	w.mu.Unlock()
	if making != nil {
		select {
		case <-making:
		case <-ctx.Done():
			return nil
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.tab
	w.tab = nil
	if t == nil || w.s != s {
		return nil
	}
	return t
}

// openSpare lists the window created ahead as a new tab and announces
// it; nil when there is none, or it has gone since (Open creates one
// then).
func (b *Browser) openSpare(ctx context.Context, s *session) *Tab {
	t := b.takeSpare(ctx, s)
	if t == nil {
		return nil
	}
	if err := context.Cause(t.dead); err != nil {
		// Crashed since: nobody knew it, so it goes quietly.
		b.drop(t.id, err)
		if _, err := cdp.Call(ctx, chromedp.FromContext(s.ctx).Browser, target.CloseTarget,
			target.CloseTargetParams{TargetID: target.ID(t.id)}); err != nil {
			b.opts.Logf("close the window created ahead: %v", err)
		}
		return nil
	}
	b.mu.Lock()
	if b.tabs[t.id] != t || b.closed {
		b.mu.Unlock()
		return nil
	}
	b.order = append(b.order, t.id)
	b.mu.Unlock()
	t.mu.Lock()
	t.announced = true
	t.mu.Unlock()
	b.emit(Event{Kind: TabOpened, Tab: t.Info()})
	return t
}
