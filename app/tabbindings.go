package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"vroom/browser"
)

// followTabs turns the browser's tab events into coalesced EventTabs: a
// burst (a page loading fires title, URL, favicon and loading changes)
// becomes one update.
func (a *App) followTabs(ctx context.Context, b *browser.Browser) {
	events := b.Subscribe(ctx)
	var flush <-chan time.Time
	var timer *time.Timer
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				if timer != nil {
					timer.Stop()
				}
				return
			}
			if ev.Kind == browser.TabClosed {
				a.pickActive(ev.Tab.ID)
			}
			a.followNav(ev)
			if flush == nil {
				timer = time.NewTimer(a.opts.TabsCoalesce)
				flush = timer.C
			}
		case <-flush:
			flush, timer = nil, nil
			a.emitTabs()
		}
	}
}

// pickActive makes sure the active tab exists: when it is gone (or gone is
// the tab just closed) the last tab nobody else holds becomes active.
func (a *App) pickActive(gone string) {
	b, err := a.browserNow()
	if err != nil {
		return
	}
	s := a.session()
	tabs := b.Tabs(browser.TabQuery{Limit: 1000}).Tabs
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active != "" && s.active != gone {
		for _, t := range tabs {
			if t.ID == s.active {
				return
			}
		}
	}
	s.active = ""
	for i := len(tabs) - 1; i >= 0; i-- {
		if tabs[i].ID != gone && tabs[i].Owner == "" {
			s.active = tabs[i].ID
			return
		}
	}
}

// setActive makes the tab id the one shown large.
func (s *session) setActive(id string) {
	s.mu.Lock()
	s.active = id
	s.mu.Unlock()
}

// activeTab is the tab shown large, "" when none.
func (s *session) activeTab() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

func (a *App) emitTabs() {
	v, err := a.Tabs()
	if err == nil {
		emit(a, EventTabs, v)
	}
}

// Tabs returns the browser's tabs and the active one.
func (a *App) Tabs() (TabsView, error) {
	b, err := a.browserNow()
	if err != nil {
		// The browser is starting: the sidebar is empty, not in error.
		return TabsView{Tabs: []browser.TabInfo{}}, nil
	}
	v := TabsView{Tabs: b.Tabs(browser.TabQuery{Limit: 1000}).Tabs}
	if v.Tabs == nil {
		v.Tabs = []browser.TabInfo{}
	}
	v.Active = a.session().activeTab()
	return v, nil
}

// NewTab opens a tab at url (blank when empty) and makes it active.
func (a *App) NewTab(url string) (browser.TabInfo, error) {
	ctx, cancel := context.WithTimeout(a.context(), browserWait)
	defer cancel()
	b, err := a.waitBrowser(ctx)
	if err != nil {
		return browser.TabInfo{}, fmt.Errorf("new tab: %w", err)
	}
	url = strings.TrimSpace(url)
	if url != "" {
		if u, ok := omniboxURL(url); ok {
			url = u
		}
	}
	t, err := b.Open(ctx, url)
	if t != nil {
		a.session().setActive(t.ID())
		a.emitTabs()
	}
	if err != nil {
		return browser.TabInfo{}, fmt.Errorf("new tab: %w", err)
	}
	return t.Info(), nil
}

// CloseTab closes the tab id. A tab an agent holds is not closed: the agent
// must finish or be stopped first.
func (a *App) CloseTab(id string) error {
	b, err := a.browserNow()
	if err != nil {
		return fmt.Errorf("close tab: %w", err)
	}
	t, err := b.Tab(id)
	if err != nil {
		return fmt.Errorf("close tab: %w", err)
	}
	if o := t.Info().Owner; o != "" {
		return fmt.Errorf("close tab: %s is working in it; stop the run first", o)
	}
	ctx, cancel := context.WithTimeout(a.context(), tabCloseWait)
	defer cancel()
	url := t.Info().URL
	if err := t.Close(ctx); err != nil {
		return fmt.Errorf("close tab: %w", err)
	}
	a.session().nav.rememberClosed(url)
	a.pickActive(id)
	a.emitTabs()
	return nil
}

// ActivateTab makes the tab id the one shown large.
func (a *App) ActivateTab(id string) error {
	b, err := a.browserNow()
	if err != nil {
		return fmt.Errorf("switch tab: %w", err)
	}
	if _, err := b.Tab(id); err != nil {
		return fmt.Errorf("switch tab: %w", err)
	}
	a.session().setActive(id)
	a.emitTabs()
	return nil
}

// LiveEndpoint returns where the UI reads tabs' frames.
func (a *App) LiveEndpoint() (LiveEndpoint, error) {
	s := a.session()
	if s == nil {
		return LiveEndpoint{}, errors.New("live view: the app has not started")
	}
	if s.live == nil {
		return LiveEndpoint{}, errors.New("live view: the frame server could not start")
	}
	return LiveEndpoint{URL: s.live.URL(), Token: s.live.token}, nil
}

// PointerInput forwards the person's mouse event in a live view to the tab,
// as trusted input. A tab an agent holds refuses it.
func (a *App) PointerInput(tabID string, ev browser.PointerInput) error {
	t, err := a.userTab(tabID)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(a.context(), inputWait)
	defer cancel()
	return a.askShown(t, t.ForwardPointer(browser.WithOwner(ctx, a.inputOwner(tabID)), ev))
}

// KeyInput forwards the person's key event in a live view to the tab.
func (a *App) KeyInput(tabID string, ev browser.KeyInput) error {
	t, err := a.userTab(tabID)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(a.context(), inputWait)
	defer cancel()
	return a.askShown(t, t.ForwardKey(browser.WithOwner(ctx, a.inputOwner(tabID)), ev))
}

// userTab is the tab the person's input goes to: the session's own, or
// an agent's in a remote browser (take-over).
func (a *App) userTab(id string) (*browser.Tab, error) {
	return a.findTab(id)
}
