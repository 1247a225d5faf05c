package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
)

// performNav sends a navigation action's command.
func (t *Tab) performNav(ctx context.Context, a Action) error {
	switch a.Kind {
	case ActBack, ActForward:
		return t.history(ctx, a.Kind)
	case ActReload:
		return t.reload(ctx)
	}
	return t.navigate(ctx, a.URL)
}

// navigate starts loading url; the wait for the load is the settle's.
func (t *Tab) navigate(ctx context.Context, url string) error {
	res, err := cdp.Call(ctx, t.target(), page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		return err
	}
	if res.ErrorText != "" {
		return fmt.Errorf("load %s: %s", url, res.ErrorText)
	}
	return nil
}

// history goes one entry back (ActBack) or forward (ActForward).
func (t *Tab) history(ctx context.Context, kind ActionKind) error {
	h, err := cdp.Call(ctx, t.target(), page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return err
	}
	i := h.CurrentIndex - 1
	if kind == ActForward {
		i = h.CurrentIndex + 1
	}
	if i < 0 || int(i) >= len(h.Entries) {
		return fmt.Errorf("%w: %w to go %s to", ErrBadArgument, ErrNoHistory, kind)
	}
	_, err = cdp.Call(ctx, t.target(), page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID})
	return err
}

func (t *Tab) reload(ctx context.Context) error {
	_, err := cdp.Call(ctx, t.target(), page.Reload, page.ReloadParams{})
	return err
}
