package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// quietMs is how long the DOM must stay still, after a frame, for the page
// to count as settled.
const quietMs = 20

// settled is the page once an action's effects have played out, or the
// settle deadline has passed.
type settled struct {
	// Settled is false when the page was still changing at the deadline;
	// Cond is whether the action's Until held (nil without one); FP is
	// the page's state at the end of the in-page wait.
	Settled bool         `json:"settled"`
	Cond    *bool        `json:"cond"`
	FP      *fingerprint `json:"fp"`
	// Pending counts the requests the action started that were still in
	// flight when the network bound was reached.
	Pending int `json:"pending"`
	// Scrolled is set when a scrolling action's settle heard scroll
	// events: the page or one of its scroll boxes moved.
	Scrolled bool `json:"scrolled"`
	// navigated is set when a new document replaced the one acted on,
	// hung when the page stopped answering; navPending when the page
	// asked for a navigation that had neither committed nor ended when
	// the wait for it stopped.
	navigated  bool
	hung       bool
	navPending bool
	// loaded is the URL of the document the wait for a load ended in.
	loaded string
	// images counts the images the page's script began loading during
	// the action that were still on their way when it settled (loads.go).
	images int
	// Look is the page as a look sees it, taken in the settle's own call
	// (settleLook) when the caller's next look is likely to want it.
	Look *frameObs `json:"look"`
}

// navEvents are the page events an action's settle follows, subscribed
// before the input. The channels serve waits that block; whether the top
// frame navigated or its page asked to is heard (navHeard) in the
// target's own event loop, so once a call into the page has answered,
// what the page did before that answer is known. A channel is filled by
// a goroutine of its own, which may not have run yet: a check that does
// not wait could miss an event that had come.
type navEvents struct {
	heard              *navHeard
	nav, load, stopped <-chan jsonv2.Value
	// mark is the tab's notes before the input (notes.go).
	mark int
	// look hears a new document's first look (firstlook.go).
	look <-chan jsonv2.Value
	stop func()
}

func (t *Tab) subscribeNav() *navEvents {
	tg := t.target()
	ev := &navEvents{heard: &navHeard{top: t.id}, mark: t.notes.mark()}
	var stops [5]func()
	ctx, stop := context.WithCancel(t.ctx)
	stops[4] = stop
	if err := chromedp.Listen(ctx, ev.heard.heard); err != nil {
		t.b.opts.Logf("tab %s: follow the page's navigations: %v", t.id, err)
	}
	ev.nav, stops[0] = tg.Subscribe("Page.frameNavigated")
	ev.load, stops[1] = tg.Subscribe("Page.loadEventFired")
	ev.stopped, stops[2] = tg.Subscribe("Page.frameStoppedLoading")
	ev.look, stops[3] = tg.Subscribe("Runtime.bindingCalled")
	ev.stop = func() {
		for _, f := range stops {
			f()
		}
	}
	return ev
}

// topNavigated reports whether a frameNavigated event v is the top
// frame's: an iframe loading (an ad, a consent dialog, a form inside one)
// is not the page navigating.
func topNavigated(v jsonv2.Value) bool {
	var e page.EventFrameNavigated
	return jsonv2.Unmarshal(v, &e) == nil && e.Frame != nil && e.Frame.ParentID == ""
}

// navHeard notes whether, since the input, the top frame navigated and
// whether its page asked to navigate it in this tab (not in a new window,
// not as a download). It runs in the target's event loop, so it only
// notes.
type navHeard struct {
	top              string
	navigated, asked atomic.Bool
	// response is the status of the top frame's latest document
	// response, 0 before one.
	response atomic.Int64
	// loads, set for an action that settles in the page (followLoads),
	// follows what the page's script begins to load, hearing the same
	// events; nil else.
	loads atomic.Pointer[scriptLoads]
}

func (h *navHeard) heard(ev any) {
	if l := h.loads.Load(); l != nil {
		l.heard(ev)
	}
	switch e := ev.(type) {
	case *page.EventFrameNavigated:
		if e.Frame != nil && e.Frame.ParentID == "" {
			h.navigated.Store(true)
		}
	case *page.EventFrameRequestedNavigation:
		if string(e.FrameID) == h.top && e.Disposition == page.ClientNavigationDispositionCurrentTab {
			h.asked.Store(true)
		}
	case *network.EventResponseReceived:
		if e.Type == network.ResourceTypeDocument && string(e.FrameID) == h.top && e.Response != nil {
			h.response.Store(e.Response.Status)
		}
	}
}

// endsInDownload reports whether a navigation that ended without a new
// document did so because its response is being downloaded: it was
// answered with content (not 204 or 205, which leave the page as it is),
// and the page did not take it.
func (h *navHeard) endsInDownload() bool {
	st := h.response.Load()
	return st >= 200 && st < 300 && st != 204 && st != 205
}

// navigatedTop reports whether the top frame navigated since the input.
func (ev *navEvents) navigatedTop() bool { return ev.heard.navigated.Load() }

// askedTop reports whether the page asked, since the input, to navigate
// its top frame in this tab.
func (ev *navEvents) askedTop() bool { return ev.heard.asked.Load() }

// navFate is what became of a navigation the page asked for.
type navFate int

const (
	navCommitted navFate = iota // a new document replaced the page
	navEnded                    // it ended without one: 204, a download, another navigation
	navPending                  // neither, when the wait stopped
)

// awaitRequested waits for the fate of a navigation the page asked for
// during the action. While the tab's guard holds a request the wait
// lasts as long as its check — the person may be deciding — and
// SettleTimeout after it, so an action is answered with what its
// navigation did, never before.
func (t *Tab) awaitRequested(ctx context.Context, ev *navEvents) (navFate, error) {
	timer := time.NewTimer(t.b.opts.SettleTimeout)
	defer timer.Stop()
	nav, stopped := ev.nav, ev.stopped
	asked := t.authAsked()
	for {
		select {
		case <-asked:
			// The site asks for a password: the navigation waits for
			// the holder's answer, which the result says is wanted.
			return navPending, nil
		case v, ok := <-nav:
			if !ok {
				nav = nil // the target is gone; t.dead says why
			} else if topNavigated(v) {
				return navCommitted, nil
			}
		case v, ok := <-stopped:
			if !ok {
				stopped = nil
				continue
			}
			var e page.EventFrameStoppedLoading
			if jsonv2.Unmarshal(v, &e) != nil || string(e.FrameID) != t.id {
				continue
			}
			// frameNavigated precedes a commit's stop, on its own channel.
			if ev.navigatedTop() {
				return navCommitted, nil
			}
			if ev.heard.endsInDownload() {
				// The frame stops loading a moment before the browser
				// tells of the download: the answer waits for it.
				t.awaitDownloadNote(ctx, ev.mark)
			}
			return navEnded, nil
		case <-timer.C:
			if t.held.Load() == 0 {
				return navPending, nil
			}
			timer.Reset(t.b.opts.SettleTimeout)
		case <-ctx.Done():
			return navPending, context.Cause(ctx)
		case <-t.dead.Done():
			return navPending, context.Cause(t.dead)
		}
	}
}

// settle waits, driven by the page's events and bounded by
// Options.SettleTimeout, for the page to go quiet after the input: in the
// page, or, after a navigation, for the new document's load. nav and load
// were subscribed before the input was sent. On ErrUnresponsive the
// returned state has hung set.
func (t *Tab) settle(ctx context.Context, s *step, ev *navEvents) (settled, error) {
	// A second past the in-page wait's own deadline: the page's timers
	// normally end it first.
	bound := t.b.opts.SettleTimeout + time.Second
	wait, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	st := settled{navigated: s.a.navigates()}
	if t.waiting != nil {
		t.waiting()
	}
	if s.frameGone {
		if err := t.toTopFrame(ctx, s); err != nil {
			return st, err
		}
	}
	asked := false
	if !st.navigated {
		var err error
		if asked, err = t.settlePage(ctx, wait, s, &st, ev); err != nil {
			return st, err
		}
		if !asked && !st.navigated {
			if err := t.settleLoads(ctx, wait, s, &st, ev.heard.loads.Load()); err != nil {
				return st, err
			}
		}
	}
	if ev.navigatedTop() {
		st.navigated = true
	}
	if !st.navigated && (asked || s.leaving || ev.askedTop()) {
		fate, err := t.awaitRequested(ctx, ev)
		st.navPending = fate == navPending
		if err != nil || fate != navCommitted {
			return st, err
		}
		// The new document's load gets its own bound: the request may
		// have been held for as long as a person took to decide.
		st.navigated = true
		var end context.CancelFunc
		wait, end = context.WithTimeout(ctx, bound)
		defer end()
	}
	if !st.navigated {
		return st, nil
	}
	err := t.settleLoad(ctx, wait, s, &st, ev)
	return st, err
}

// settlePage is the settle in the page, when the action did not navigate
// by itself. A page that asked to navigate its top frame is not waited in:
// while that navigation is on its way — held by the guard while a person
// reads the card — Chromium stops the page's frames, and an in-page wait
// would go unanswered and read as a hung page. asked reports that.
func (t *Tab) settlePage(ctx, wait context.Context, s *step, st *settled, ev *navEvents) (asked bool, err error) {
	if ev.askedTop() {
		return true, nil
	}
	if err := t.settleInPage(ctx, wait, s, st); err != nil {
		if !st.hung || !ev.askedTop() {
			return false, err
		}
		// The page asked to navigate after the wait began (a script's
		// redirect): the silence was the navigation's, not a hang.
		st.hung = false
		return true, nil
	}
	if st.navigated && string(s.w.frame) != t.id && t.frameLeft(ctx, s.w) {
		// The iframe acted in closed or loaded another page, not the
		// page: it settles in the top frame.
		st.navigated, s.frameGone = false, true
		if err := t.toTopFrame(ctx, s); err != nil {
			return false, err
		}
		return false, t.settleInPage(ctx, wait, s, st)
	}
	return false, nil
}

// settleLoads settles once more when the page's script began loading
// code during the action (loads.go): in a window opened anew that waits
// for the loads still on their way and for what their code starts once it
// runs, so its effect is in the answer. The state and the look of this
// settle stand for the page; the first one's are dropped.
func (t *Tab) settleLoads(ctx, wait context.Context, s *step, st *settled, l *scriptLoads) error {
	if l == nil || !t.ownTop(s.w) {
		return nil
	}
	seen, pending, images := l.state()
	if !seen {
		st.images = images
		return nil
	}
	s.again = append(make([]string, 0, len(pending)), pending...)
	defer func() { s.again = nil }()
	again := settled{navigated: st.navigated}
	err := t.settleInPage(ctx, wait, s, &again)
	again.Scrolled = again.Scrolled || st.Scrolled
	*st = again
	_, _, st.images = l.state()
	return err
}

// toTopFrame points s at the top frame's world: the frame it acted in is
// gone (s.frameGone), and its ref with it.
func (t *Tab) toTopFrame(ctx context.Context, s *step) error {
	w, _, err := t.mainWorld(ctx)
	if err != nil {
		return err
	}
	s.w, s.a.Ref = w, ""
	return nil
}

// scrollStart is the page before a scroll, which its settle starts from.
type scrollStart struct {
	Scrolls int    `json:"scrolls"`
	Muts    int    `json:"muts"`
	Key     bool   `json:"key"` // a key press: in a text field it moves the caret
	Dir     string `json:"dir"` // down, up, or "" when not known
}

// settleInPage waits in the page for the DOM to go quiet, for the requests
// and short timers the action started (bounded by netBoundMs), and for the
// action's condition to hold. A type or clear passes the mutation count from before
// the input, so a field whose DOM did not change settles at once. A
// document that goes away under the wait marks st navigated.
func (t *Tab) settleInPage(ctx, wait context.Context, s *step, st *settled) error {
	if e := s.early; e != nil {
		// The action settled in the call that made it (selectOption).
		s.early = nil
		err := json.Unmarshal(e, st)
		t.keepLook(s, st)
		return err
	}
	fn, args := t.settleArgs(s)
	err := t.call(wait, s.w, fn, st, args...)
	t.keepLook(s, st)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil || context.Cause(t.dead) != nil:
		return err
	case wait.Err() != nil:
		// The in-page wait has its own timer; a page that misses the host
		// deadline is not running its timers at all.
		st.hung = true
		return fmt.Errorf("%w: no answer %v after the input was sent", ErrUnresponsive, t.b.opts.SettleTimeout+time.Second)
	}
	// The document went away under the wait: a navigation.
	st.navigated = true
	return nil
}

// settleArgs are the in-page settle's function and arguments for s: with
// the look the caller will want next where it takes one (lookArgs, which
// numbers it).
func (t *Tab) settleArgs(s *step) (fn string, args []any) {
	var mutsBefore *int
	if s.a.Kind == ActType || s.a.Kind == ActClear {
		mutsBefore = &s.before.Muts
	}
	max := t.b.opts.SettleTimeout
	// The network phase leaves the DOM's settle some of the deadline.
	netMs := min(int64(netBoundMs), max.Milliseconds()*2/3)
	// A scroll settles on the scroll's own end first (its animation, or
	// nowhere to go), counted from the scroll events before the input.
	var sc *scrollStart
	if s.a.scrolls() {
		sc = &scrollStart{Scrolls: s.before.Scrolls, Muts: s.before.Muts, Key: s.a.Kind == ActPress, Dir: s.a.scrollDir()}
	}
	fast := t.settlesFast(s)
	if s.again != nil {
		// After code the page loaded: its effect comes in tasks of its own.
		fast, mutsBefore = false, nil
	}
	fn, args = "settle", []any{quietMs, max.Milliseconds(), s.a.Until, s.a.Ref, mutsBefore, netMs, sc, fast}
	if l := t.lookArgs(s); l != nil {
		fn, args = "settleLook", append([]any{l}, args...)
	}
	if s.again != nil {
		return "settleAgain", append([]any{s.again, fn}, args...)
	}
	return fn, args
}

// settlesFast reports whether the action may settle as soon as the page
// has run what the input started (settle.js): a click, a key, a choice or
// typing (without the Enter that submits) in the top frame, whose effect
// is the page's own. An action in a frame
// is judged in the page around it too, which hears of it only by a
// message across processes; click_at compares the screen, which needs
// the frame painted.
func (t *Tab) settlesFast(s *step) bool {
	switch s.a.Kind {
	case ActClick, ActPress, ActSelect:
	case ActType:
		if s.a.Submit {
			return false
		}
	default:
		return false
	}
	return s.top == nil && !s.frameGone && t.ownTop(s.w)
}

// ownTop reports whether w is the world of the tab's own top frame, on
// the tab's own session.
func (t *Tab) ownTop(w *world) bool {
	return w != nil && string(w.frame) == t.id && w.sess == t.target()
}

// settleLoad waits for the new document's load event or the deadline,
// then, when the action has a condition, for it in the new document's
// own world. A document that started with the walker takes its first look
// itself, right after its load (firstlook.go): the page is then known
// without a call to it.
func (t *Tab) settleLoad(ctx, wait context.Context, s *step, st *settled, ev *navEvents) error {
	fl := s.look
	if err := t.awaitNewLoad(ctx, wait, fl, ev); err != nil {
		return err
	}
	var top *cdp.Frame
	if t.awaitLook(wait, fl, ev) {
		top = t.tookLook(fl)
	}
	if top == nil {
		// The whole frame list, not the top frame alone: the look at the
		// new page that follows reads it from here.
		fs, err := t.frames(ctx)
		if err != nil {
			return err
		}
		top = fs[0]
	}
	w, err := t.world(ctx, top)
	if err != nil {
		return err
	}
	s.w = w
	st.loaded = top.URL + top.URLFragment
	st.Settled = true
	if s.a.Until == nil {
		return nil
	}
	st.Cond = nil
	return t.call(wait, w, "settle", st, quietMs, t.b.opts.SettleTimeout.Milliseconds(), s.a.Until, "")
}

// awaitNewLoad waits for the new document's load event, or the deadline,
// hearing meanwhile from the new document's walker.
func (t *Tab) awaitNewLoad(ctx, wait context.Context, fl *firstLook, ev *navEvents) error {
	look := ev.look
	for {
		select {
		case <-ev.load:
			return nil
		case v, ok := <-look:
			if !ok {
				look = nil
				continue
			}
			t.heard(fl, v)
		case <-wait.Done():
			if ctx.Err() != nil || context.Cause(t.dead) != nil {
				return context.Cause(wait)
			}
			return nil
		}
	}
}
