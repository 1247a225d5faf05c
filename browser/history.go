package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
)

// The person's toolbar: back, forward, reload and stop, sent as they are
// and not as checked actions (no target to verify, no settle to wait on:
// the tab's loading state and the live view say what follows).

// NavHistory is where a tab stands in its session history.
type NavHistory struct {
	CanBack    bool `json:"canBack"`
	CanForward bool `json:"canForward"`
}

// History reports whether the tab can go back and forward.
func (t *Tab) History(ctx context.Context) (NavHistory, error) {
	cctx, cancel, err := t.beginTab(ctx)
	if err != nil {
		return NavHistory{}, fmt.Errorf("history: %w", err)
	}
	defer cancel()
	h, err := cdp.Call(cctx, t.target(), page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return NavHistory{}, fmt.Errorf("history: %w", t.fail(cctx, err))
	}
	return NavHistory{CanBack: h.CurrentIndex > 0, CanForward: int(h.CurrentIndex) < len(h.Entries)-1}, nil
}

// GoBack goes one entry back in the tab's history; ErrBadArgument when
// there is none.
func (t *Tab) GoBack(ctx context.Context) error { return t.goHistory(ctx, ActBack) }

// GoForward goes one entry forward; ErrBadArgument when there is none.
func (t *Tab) GoForward(ctx context.Context) error { return t.goHistory(ctx, ActForward) }

func (t *Tab) goHistory(ctx context.Context, kind ActionKind) error {
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return fmt.Errorf("go %s: %w", kind, err)
	}
	defer cancel()
	if err := t.history(cctx, kind); err != nil {
		return fmt.Errorf("go %s: %w", kind, t.fail(cctx, err))
	}
	return nil
}

// Reload reloads the page, from the network when bypassCache (Shift+F5).
func (t *Tab) Reload(ctx context.Context, bypassCache bool) error {
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return fmt.Errorf("reload: %w", err)
	}
	defer cancel()
	if _, err := cdp.Call(cctx, t.target(), page.Reload, page.ReloadParams{IgnoreCache: &bypassCache}); err != nil {
		return fmt.Errorf("reload: %w", t.fail(cctx, err))
	}
	return nil
}

// StopLoading stops the page loading, as the toolbar's stop button does.
func (t *Tab) StopLoading(ctx context.Context) error {
	cctx, cancel, err := t.beginTab(ctx)
	if err != nil {
		return fmt.Errorf("stop loading: %w", err)
	}
	defer cancel()
	if _, err := cdp.Call(cctx, t.target(), page.StopLoading, cdp.Empty{}); err != nil {
		return fmt.Errorf("stop loading: %w", t.fail(cctx, err))
	}
	return nil
}

// forgetBlank drops the blank page a tab opened at a URL was made with
// from its history: that page was the browser's doing, not the person's,
// and Back from the first page would go to it (Chrome's tab opened at a
// URL has no way back). Only blank entries before the current one go: a
// page that sent itself on while it loaded keeps its own.
func (t *Tab) forgetBlank(ctx context.Context) error {
	h, err := cdp.Call(ctx, t.target(), page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if h.CurrentIndex < 1 || int(h.CurrentIndex) >= len(h.Entries) {
		return nil
	}
	for _, e := range h.Entries[:h.CurrentIndex] {
		if e.URL != "about:blank" {
			return nil
		}
	}
	if _, err := cdp.Call(ctx, t.target(), page.ResetNavigationHistory, cdp.Empty{}); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}
