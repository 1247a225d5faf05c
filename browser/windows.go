package browser

import (
	"context"
	"errors"
	"time"

	"github.com/chromedp/cdproto/page"
)

// A page opens a window with window.open, a link or a form with a target.
// The browser adopts every such page target as a Tab leased to whoever
// holds the opener (handPopup), reports it on the opener (a TabPopup event
// naming it, and the Result of the action that opened it), and reports its
// closing there too (TabClosed with Opener set). An action whose page
// closes its own window (a sign-in popup done) is answered Closed.

// windowWait bounds how long an action's result waits for the tab a
// window it opened becomes: the target is created and attached after the
// page asks for it.
const windowWait = 2 * time.Second

// windowOpened runs in the opener's read loop when its page asks for a
// new window.
func (t *Tab) windowOpened(ev *page.EventWindowOpen) {
	t.notes.add(pageNote{window: &windowNote{url: ev.URL, gesture: ev.UserGesture}})
}

// windowNote is a window the page asked for, or (tab set, or failed) what
// became of it.
type windowNote struct {
	url     string
	gesture bool
	tab     string
	failed  bool
	claimed bool // a tab has been matched to this request
}

// adoptedPopup finishes adopting popup p of the tab opener: its opener
// named, leased to the opener's holder, and reported.
func (b *Browser) adoptedPopup(p *Tab, opener string) {
	b.mu.Lock()
	ot := b.tabs[opener]
	b.mu.Unlock()
	p.update(func(ti *TabInfo) bool { ti.Opener = opener; return true })
	gesture := false
	if ot != nil {
		ot.handPopup(p)
		gesture = ot.notes.claimWindow()
		ot.notes.add(pageNote{window: &windowNote{tab: p.id}})
	}
	b.emit(Event{Kind: TabPopup, Tab: p.Info(), Opener: opener, UserGesture: gesture})
}

// popupFailed notes on the opener that a window it opened could not be
// adopted (a download link with a target: the tab closes at once).
func (b *Browser) popupFailed(opener string) {
	b.mu.Lock()
	ot := b.tabs[opener]
	b.mu.Unlock()
	if ot != nil {
		ot.notes.add(pageNote{window: &windowNote{failed: true}})
	}
}

// claimWindow takes the oldest window request not yet matched by a tab
// and reports whether a person's or agent's input made it (the click on a
// link, not a script of its own).
func (n *pageNotes) claimWindow() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, p := range n.list {
		if w := p.window; w != nil && w.tab == "" && !w.failed && !w.claimed {
			w.claimed = true
			return w.gesture
		}
	}
	return false
}

// noteWindows puts the tabs the action's windows became in its result,
// waiting (up to windowWait) for those asked for and not adopted yet.
func (t *Tab) noteWindows(ctx context.Context, r *Result, mark int) {
	deadline := time.NewTimer(windowWait)
	defer deadline.Stop()
	for {
		asked, ended := 0, 0
		var opened []string
		wake := t.notes.changes()
		for _, p := range t.notes.since(mark) {
			switch w := p.window; {
			case w == nil:
			case w.tab != "":
				opened, ended = append(opened, w.tab), ended+1
			case w.failed:
				ended++
			default:
				asked++
			}
		}
		if ended >= asked || ctx.Err() != nil {
			t.addOpened(r, opened)
			return
		}
		select {
		case <-wake:
		case <-deadline.C:
			t.addOpened(r, opened)
			return
		case <-ctx.Done():
		}
	}
}

// addOpened adds the tabs to the result, as they are now.
func (t *Tab) addOpened(r *Result, ids []string) {
	for _, id := range ids {
		if p, err := t.b.Tab(id); err == nil {
			r.Opened = append(r.Opened, p.Info())
			addEffect(r, "a new window")
		}
	}
}

// closedResult is the result of an action during which the page closed
// its own window. Only a window a page opened can be closed by its page
// (window.close does nothing to another): any other tab closing under an
// action was closed from elsewhere, which stays an error.
func (t *Tab) closedResult(a Action, err error, start time.Time, url string) (*Result, bool) {
	if !errors.Is(err, ErrTabClosed) || t.Info().Opener == "" {
		return nil, false
	}
	return &Result{Action: a.Kind, Ref: a.Ref, Closed: true, Changed: true, Effects: []string{"its window closed"},
		Settled: true, URL: url, Took: time.Since(start)}, true
}
