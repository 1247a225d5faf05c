package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
)

// Acting around a dialog: the call it interrupts, the action that answers
// it, and leaving the page it blocks.

// raisedDialog turns an action interrupted by a held dialog into its
// result: the dialog is the action's effect, and the page's state from
// before the action is kept to judge the answer by.
func (t *Tab) raisedDialog(ctx context.Context, s *step, d *Dialog, mark int, start time.Time) *Result {
	r := s.r
	t.noteResult(ctx, r, mark)
	r.Dialog = d
	addEffect(r, "dialog")
	r.Settled = true
	r.Took = time.Since(start)
	if r.URL == "" {
		r.URL = d.URL
	}
	t.dlg.mu.Lock()
	if od := t.dlg.open; od != nil && od.d.ID == d.ID && s.w != nil && s.before.URL != "" {
		base := s.before
		od.base, od.w = &base, s.w
	}
	t.dlg.mu.Unlock()
	return r
}

// doDialog answers the open dialog as an action: the answer, then the
// page's settle and verdict, judged against the page before the action
// that raised the dialog when it is known.
func (t *Tab) doDialog(ctx context.Context, a Action) (*Result, error) {
	cctx, cancel, err := t.beginTab(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", describe(a), err)
	}
	defer cancel()
	t.op.Lock()
	defer t.op.Unlock()
	start, mark := time.Now(), t.notes.mark()
	od := t.dlg.current()
	if od == nil {
		return nil, fmt.Errorf("%s: %w", describe(a), ErrNoDialog)
	}
	ev := t.subscribeNav()
	defer ev.stop()
	if err := t.answerOpen(cctx, od, DialogAnswer{Accept: a.Accept, Text: a.Text}, DialogByHolder); err != nil {
		return nil, fmt.Errorf("%s: %w", describe(a), t.fail(cctx, err))
	}
	ictx, done := t.interruptible(cctx)
	defer done()
	s := &step{a: a, r: &Result{Action: a.Kind}, leaving: od.d.Kind == DialogBeforeUnload && a.Accept}
	s.w, s.before = t.dialogBase(od)
	r, err := t.afterAnswer(ictx, s, ev, start)
	if interrupted(ictx) {
		// Answering it raised another (a confirm, then a prompt).
		r = t.raised(ictx, s, mark, start)
		err = nil
	} else if r != nil {
		t.noteResult(ctx, r, mark)
	}
	if r != nil {
		t.dlg.mu.Lock()
		closed := od.d
		t.dlg.mu.Unlock()
		closed.Held, closed.By = false, DialogByHolder
		closed.Answer = &DialogAnswer{Accept: a.Accept, Text: a.Text}
		r.Dialogs = append([]Dialog{closed}, r.Dialogs...)
	}
	if err != nil {
		return r, fmt.Errorf("%s: %w", describe(a), t.fail(ictx, err))
	}
	return r, nil
}

// dialogBase is the world and page state from before the action that
// raised the dialog, when they are still the page's.
func (t *Tab) dialogBase(od *openDialog) (*world, fingerprint) {
	t.dlg.mu.Lock()
	base, bw := od.base, od.w
	t.dlg.mu.Unlock()
	if base != nil && t.worlds[bw.frame] == bw {
		return bw, *base
	}
	return nil, fingerprint{}
}

// afterAnswer settles the page after an answer to what blocked it and
// judges it, against s.before when s.w is set.
func (t *Tab) afterAnswer(ctx context.Context, s *step, ev *navEvents, start time.Time) (*Result, error) {
	if s.w == nil {
		w, _, err := t.mainWorld(ctx)
		if err != nil {
			return nil, err
		}
		s.w = w
		// The page's reaction to the answer runs before this look, so
		// it may count as the page's state before; a navigation, which
		// is what most answers lead to, is still seen.
		if err := t.call(ctx, w, "fingerprint", &s.before, "", true); err != nil && !goneDocument(err) {
			return nil, err
		}
		t.tookBefore(s)
	}
	return t.finish(ctx, s, ev, start)
}

// leaveBlocked is a navigation asked for while the page is blocked (a
// held dialog, a password its navigation waits for): the action takes no
// baseline and goes straight to the browser, which closes the dialog (or
// drops the waiting navigation) as it leaves. A "Leave site?" dialog is
// the page asking about exactly this: it must be answered instead.
//
// A page whose script keeps opening dialogs in a loop cannot be left for
// a page of the same site: that page would load in the same renderer,
// which never gets out of the loop. Another site loads in a process of its
// own, and closing the tab always works.
func (t *Tab) leaveBlocked(ctx context.Context, a Action) (*Result, error) {
	if d, ok := t.Dialog(); ok && d.Kind == DialogBeforeUnload && d.Held {
		return nil, fmt.Errorf("%s: %w", describe(a), &DialogError{Dialog: d})
	}
	cctx, cancel, err := t.beginTab(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", describe(a), err)
	}
	defer cancel()
	t.op.Lock()
	defer t.op.Unlock()
	start, mark := time.Now(), t.notes.mark()
	ev := t.subscribeNav()
	defer ev.stop()
	r := &Result{Action: a.Kind}
	// Bounded: with a navigation of the page's already pending, the
	// browser takes the next one only once the blocked page lets go.
	nctx, end := context.WithTimeout(cctx, t.b.opts.SettleTimeout)
	err = t.performNav(nctx, a)
	end()
	if err != nil && (cctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded)) {
		return nil, fmt.Errorf("%s: %w", describe(a), t.fail(cctx, err))
	}
	if err != nil {
		r.NavRequested = true
		addEffect(r, "a navigation started, not loaded yet")
		if od := t.dlg.current(); od != nil {
			t.leaveHeld(r, od)
		}
	} else if err := t.awaitLeave(cctx, r, ev); err != nil {
		return nil, fmt.Errorf("%s: %w", describe(a), t.fail(cctx, err))
	}
	t.noteResult(ctx, r, mark)
	r.URL, r.Took = t.Info().URL, time.Since(start)
	if u, err := t.currentURL(cctx); err == nil {
		r.URL = u
	}
	return r, nil
}

// awaitLeave waits for the top frame's new document and its load, bounded
// by SettleTimeout each. A "Leave site?" dialog the navigation raised is
// the result's at once; another dialog the old page opened meanwhile is
// the result's if the navigation has not committed by the bound.
func (t *Tab) awaitLeave(ctx context.Context, r *Result, ev *navEvents) error {
	bound := time.NewTimer(t.b.opts.SettleTimeout)
	defer bound.Stop()
	held := t.dlg.held().Done()
	for !r.Navigated {
		select {
		case v, ok := <-ev.nav:
			if !ok {
				return context.Cause(t.dead)
			}
			r.Navigated = topNavigated(v)
		case <-held:
			held = nil
			if od := t.dlg.current(); od != nil && od.d.Kind == DialogBeforeUnload {
				return t.leaveHeld(r, od)
			}
		case <-bound.C:
			r.NavRequested = true
			addEffect(r, "a navigation started, not loaded yet")
			if od := t.dlg.current(); od != nil && t.dlg.held().Err() != nil {
				return t.leaveHeld(r, od)
			}
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	addEffect(r, "navigation")
	bound.Reset(t.b.opts.SettleTimeout)
	select {
	case <-ev.load:
	case <-bound.C:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	r.Settled = true
	return nil
}

// leaveHeld puts the dialog held while leaving into the result.
func (t *Tab) leaveHeld(r *Result, od *openDialog) error {
	t.dlg.mu.Lock()
	d := od.d
	t.dlg.mu.Unlock()
	r.Dialog = &d
	r.Settled = true
	addEffect(r, "dialog")
	return nil
}

// currentURL reads the top frame's URL from the browser's history, which
// needs nothing of the page.
func (t *Tab) currentURL(ctx context.Context) (string, error) {
	h, err := cdp.Call(ctx, t.target(), page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return "", err
	}
	if h.CurrentIndex < 0 || int(h.CurrentIndex) >= len(h.Entries) {
		return "", errors.New("no history entry")
	}
	return h.Entries[h.CurrentIndex].URL, nil
}
