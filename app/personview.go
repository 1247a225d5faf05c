package app

import (
	"context"
	"fmt"
	"sync"

	"vroom/browser"
)

// EventPerson carries a PersonView: something the page in the person's
// tab asks the view to draw (a select's list, a date or colour picker, the
// context menu) or to show (the cursor shape).
const EventPerson Event[PersonView] = "person:event"

// PersonView is a browser.PersonEvent of the tab Tab.
type PersonView struct {
	Tab   string              `json:"tab"`
	Event browser.PersonEvent `json:"event"`
}

// personViews are the tabs whose pages serve the person's view, each until
// its cancel is called.
type personViews struct {
	mu   sync.Mutex
	tabs map[string]context.CancelFunc
}

// PersonView starts (on) or stops serving the tab's page to the person's
// view: while served, what headless Chromium does not draw (select lists,
// date, colour and datalist pickers, the context menu, the cursor) comes
// to the UI as EventPerson, and the page's scrollbars show. A tab an agent
// holds refuses it; the UI serves only the tab it shows large.
func (a *App) PersonView(tabID string, on bool) error {
	s := a.session()
	if s == nil {
		return fmt.Errorf("person view: %w", ErrBrowserNotReady)
	}
	pv := &s.people
	pv.mu.Lock()
	if stop := pv.tabs[tabID]; stop != nil {
		stop()
		delete(pv.tabs, tabID)
	}
	pv.mu.Unlock()
	if !on {
		return nil
	}
	t, err := a.findTab(tabID)
	if err != nil {
		return fmt.Errorf("person view: %w", err)
	}
	ctx, cancel := context.WithCancel(s.ctx)
	events, err := t.ServePerson(browser.WithOwner(ctx, User))
	if err != nil {
		cancel()
		return fmt.Errorf("person view: %w", err)
	}
	pv.mu.Lock()
	if pv.tabs == nil {
		pv.tabs = map[string]context.CancelFunc{}
	}
	if old := pv.tabs[tabID]; old != nil {
		old() // a second call raced this one: the newer serving wins
	}
	pv.tabs[tabID] = cancel
	pv.mu.Unlock()
	go a.relayPerson(tabID, events)
	return nil
}

// relayPerson sends the tab's person events to the UI; what a copy took
// goes to the desktop's clipboard.
func (a *App) relayPerson(tabID string, events <-chan browser.PersonEvent) {
	for ev := range events {
		if ev.Kind == browser.PersonCopied {
			if err := a.clipboard().SetText(ev.Text); err != nil {
				a.log.Warn("copy to the desktop's clipboard", "err", err)
			}
			continue
		}
		emit(a, EventPerson, PersonView{Tab: tabID, Event: ev})
	}
}

// ChoosePicker makes the person's choice in the open popup id of the tab:
// a select's option (its value, the index), or the input's new value.
func (a *App) ChoosePicker(tabID string, id int, value string) error {
	t, err := a.findTab(tabID)
	if err != nil {
		return fmt.Errorf("choose: %w", err)
	}
	ctx, cancel := context.WithTimeout(a.context(), inputWait)
	defer cancel()
	return t.Choose(browser.WithOwner(ctx, User), id, value)
}

// DismissPicker closes the popup id with no choice (Escape, a click away).
func (a *App) DismissPicker(tabID string, id int) error {
	t, err := a.findTab(tabID)
	if err != nil {
		return fmt.Errorf("dismiss: %w", err)
	}
	ctx, cancel := context.WithTimeout(a.context(), inputWait)
	defer cancel()
	return t.Dismiss(browser.WithOwner(ctx, User), id)
}
