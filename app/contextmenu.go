package app

import (
	"context"
	"fmt"
	"net/url"

	"vroom/browser"
)

// The context menu of the person's tab is drawn by the UI from a
// browser.ContextMenu (EventPerson); its items call these and the
// clipboard's (Copy, CopyText, Paste).

// OpenInNewTab opens a link of the person's page in a new tab behind the
// active one, as Chrome's "Open link in new tab" does.
func (a *App) OpenInNewTab(link string) (browser.TabInfo, error) {
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return browser.TabInfo{}, fmt.Errorf("open link in new tab: %q is not a web address", link)
	}
	ctx, cancel := context.WithTimeout(a.context(), browserWait)
	defer cancel()
	b, err := a.waitBrowser(ctx)
	if err != nil {
		return browser.TabInfo{}, fmt.Errorf("open link in new tab: %w", err)
	}
	t, err := b.Open(ctx, u.String())
	if t != nil {
		a.emitTabs()
	}
	if err != nil {
		return browser.TabInfo{}, fmt.Errorf("open link in new tab: %w", err)
	}
	return t.Info(), nil
}

// MenuNav goes back, forward or reloads the person's tab from its
// context menu.
func (a *App) MenuNav(tabID string, kind browser.ActionKind) error {
	if kind != browser.ActBack && kind != browser.ActForward && kind != browser.ActReload {
		return fmt.Errorf("context menu: %q is not back, forward or reload", kind)
	}
	t, err := a.userTab(tabID)
	if err != nil {
		return fmt.Errorf("%s: %w", kind, err)
	}
	ctx, cancel := context.WithTimeout(a.context(), browserWait)
	defer cancel()
	if _, err := t.Do(browser.WithOwner(ctx, a.inputOwner(tabID)), browser.Action{Kind: kind}); err != nil {
		return fmt.Errorf("%s: %w", kind, err)
	}
	return nil
}
