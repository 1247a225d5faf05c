package app

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"vroom/browser"
)

// The person's toolbar and the shortcuts Chrome has for it: back,
// forward, reload and stop on the tab shown large, a closed tab reopened,
// and a window a tab opened shown in its place as Chrome shows it.

// NavState is what the toolbar shows for a tab: which way its history
// goes and its page zoom (1 is 100%).
type NavState struct {
	CanBack    bool    `json:"canBack"`
	CanForward bool    `json:"canForward"`
	Zoom       float64 `json:"zoom"`
}

// maxClosedTabs is how many closed tabs Ctrl+Shift+T can bring back.
const maxClosedTabs = 25

// personNav is the session's memory of the person's browsing: the tabs
// they closed and each tab's view (the zoom of each site is in Settings). It has its own
// lock: the browser's events and the bindings both reach it.
type personNav struct {
	mu     sync.Mutex
	closed []string              // URLs of closed tabs, newest last
	views  map[string]personView // tab → the view it is shown in
}

// personView is the size a tab is shown at, and the site whose zoom its
// viewport was laid out with.
type personView struct {
	w, h int
	dpr  float64
	site string
}

// NavState says which way the tab's history goes and its zoom.
func (a *App) NavState(tabID string) (NavState, error) {
	t, err := a.userTab(tabID)
	if err != nil {
		return NavState{}, fmt.Errorf("navigation: %w", err)
	}
	ctx, cancel := context.WithTimeout(a.context(), inputWait)
	defer cancel()
	h, err := t.History(browser.WithOwner(ctx, a.inputOwner(tabID)))
	if err != nil {
		return NavState{}, fmt.Errorf("navigation: %w", err)
	}
	return NavState{CanBack: h.CanBack, CanForward: h.CanForward, Zoom: a.siteZoom(siteOf(t.Info().URL))}, nil
}

// GoBack goes one page back in the tab (the back button, Alt+Left). A
// tab with no page before it stays as it is, as in Chrome: the key is
// sent without knowing, since what the window last read of the history
// may be older than the tab.
func (a *App) GoBack(tabID string) error {
	return a.onTab(tabID, "back", func(ctx context.Context, t *browser.Tab) error { return noHistory(t.GoBack(ctx)) })
}

// GoForward goes one page forward in the tab (the forward button,
// Alt+Right); with no page after it, the tab stays as it is.
func (a *App) GoForward(tabID string) error {
	return a.onTab(tabID, "forward", func(ctx context.Context, t *browser.Tab) error { return noHistory(t.GoForward(ctx)) })
}

// noHistory is err, but nil when it only says there was no page to go to.
func noHistory(err error) error {
	if errors.Is(err, browser.ErrNoHistory) {
		return nil
	}
	return err
}

// Reload reloads the tab (F5, Ctrl+R); bypassCache reloads from the
// network (Shift+F5, Ctrl+Shift+R).
func (a *App) Reload(tabID string, bypassCache bool) error {
	return a.onTab(tabID, "reload", func(ctx context.Context, t *browser.Tab) error { return t.Reload(ctx, bypassCache) })
}

// StopLoading stops the tab loading (the stop button).
func (a *App) StopLoading(tabID string) error {
	return a.onTab(tabID, "stop", func(ctx context.Context, t *browser.Tab) error { return t.StopLoading(ctx) })
}

// onTab runs fn on the tab the person's input goes to, as whom it acts.
func (a *App) onTab(tabID, what string, fn func(context.Context, *browser.Tab) error) error {
	t, err := a.userTab(tabID)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	ctx, cancel := context.WithTimeout(a.context(), inputWait)
	defer cancel()
	return fn(browser.WithOwner(ctx, a.inputOwner(tabID)), t)
}

// ReopenClosedTab opens the tab the person closed last again, at its URL,
// and shows it (Ctrl+Shift+T).
func (a *App) ReopenClosedTab() (browser.TabInfo, error) {
	s := a.session()
	if s == nil {
		return browser.TabInfo{}, fmt.Errorf("reopen tab: the app has not started")
	}
	nav := &s.nav
	nav.mu.Lock()
	n := len(nav.closed)
	if n == 0 {
		nav.mu.Unlock()
		return browser.TabInfo{}, fmt.Errorf("reopen tab: no tab was closed")
	}
	url := nav.closed[n-1]
	nav.closed = nav.closed[:n-1]
	nav.mu.Unlock()
	return a.NewTab(url)
}

// rememberClosed keeps the URL of a tab the person closed.
func (n *personNav) rememberClosed(url string) {
	if url == "" || url == "about:blank" {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = append(n.closed, url)
	if len(n.closed) > maxClosedTabs {
		n.closed = n.closed[len(n.closed)-maxClosedTabs:]
	}
}

// followNav keeps the person's view in step with a tab event: a window the
// shown tab opened is shown instead (as Chrome brings it to the front; a
// link opened in the background stays there), and a tab whose site
// changed is laid out with the new site's zoom.
func (a *App) followNav(ev browser.Event) {
	s := a.session()
	switch ev.Kind {
	case browser.TabPopup:
		if ev.Tab.Owner == "" && ev.Opener != "" && s.activeTab() == ev.Opener {
			s.setActive(ev.Tab.ID)
		}
	case browser.TabUpdated:
		s.nav.mu.Lock()
		v, ok := s.nav.views[ev.Tab.ID]
		s.nav.mu.Unlock()
		if ok && v.site != siteOf(ev.Tab.URL) {
			// Off the events' goroutine: laying out waits on the tab.
			go func() {
				if err := a.layOut(ev.Tab.ID); err != nil && !errors.Is(err, browser.ErrTabClosed) {
					a.log.Warn("the new site's zoom was not applied", "tab", ev.Tab.ID, "err", err)
				}
			}()
		}
	case browser.TabClosed:
		s.nav.mu.Lock()
		delete(s.nav.views, ev.Tab.ID)
		s.nav.mu.Unlock()
	}
}
