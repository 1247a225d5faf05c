package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// What a tab's pages open is held as the tab is. A window a page opens
// (window.open, a link or a form with a target) is a target of its own
// whose first navigation would leave before anyone attached to it; a
// cross-site frame that site isolation puts in its own process is another
// target, whose requests the tab's session does not see.
//
// A window is registered as a Tab with its opener's guard (shareGuard) as
// the browser hears of it, and its first navigation is held by the
// browser's own Fetch domain, which pauses every document request of the
// browser (holdWindows): one a window sends before its tab is set up is
// checked at once by its opener's guard; any other goes on, its tab's own
// Fetch holding it. Before such a window's first document goes on, the
// browser's Fetch pauses every request, of any kind, until the window is
// set up (windowHold.widen): what the document sends meanwhile is checked
// by the same guard, and the response need not wait for the set-up,
// which would deadlock (the attach waits on the page). Pausing the window itself until attached (auto-attach
// waiting for the debugger) is not possible through chromedp: a page with
// no document running yet is resumed only by the session auto-attach
// made, which the browser level makes flat, and chromedp neither routes
// nor lets speak a session it did not open.
//
// A frame does wait, as auto-attach asks (waitForDebuggerOnStart): the
// tab is told of it on a session that is not flat, through which it is
// resumed (resumeChild) once a session of the tab's, attached through
// chromedp, holds its requests with the tab's Fetch set-up and wrappers.

// adopt attaches to a page target and registers it as a Tab.
func (b *Browser) adopt(ctx context.Context, s *session, id, opener string) (*Tab, error) {
	t, known := b.register(s, id, opener)
	if known {
		return t, nil
	}
	return b.finish(ctx, t, opener)
}

// register makes the Tab of a page target and lists it, before it is
// attached; known: it was listed already, and t is that tab. A window
// gets its opener's guard here, before its first request (targets.go).
// It sends no command: the read loop calls it for a popup.
func (b *Browser) register(s *session, id, opener string) (t *Tab, known bool) {
	var tctx context.Context
	var cancel context.CancelFunc
	if id == s.rootID {
		tctx, cancel = s.ctx, func() {}
	} else {
		tctx, cancel = chromedp.NewContext(s.ctx, chromedp.WithTargetID(target.ID(id)))
	}
	t = newTab(b, s, id, tctx, cancel)
	b.mu.Lock()
	if prev, ok := b.tabs[id]; ok {
		b.mu.Unlock()
		cancel()
		return prev, true
	}
	b.tabs[id] = t
	b.order = append(b.order, id)
	ot := b.tabs[opener]
	b.mu.Unlock()
	if ot != nil {
		ot.shareGuard(t)
	}
	return t, false
}

// finish attaches a registered tab and announces it.
func (b *Browser) finish(ctx context.Context, t *Tab, opener string) (*Tab, error) {
	if err := t.attach(ctx); err != nil {
		b.drop(t.id, err)
		return nil, fmt.Errorf("attach tab %s: %w", t.id, err)
	}
	t.mu.Lock()
	t.announced = true
	t.mu.Unlock()
	if opener != "" {
		b.adoptedPopup(t, opener)
	} else {
		b.emit(Event{Kind: TabOpened, Tab: t.Info()})
	}
	return t, nil
}

// adoptPopup adopts a tab a page opened, which nobody asked for and so
// nobody waits on: a failure is logged, and the popup stays out of the
// list (finish has already dropped it). It runs in the read loop: the
// tab is listed at once, so the window's first request finds it
// (targets.go), and attached on a goroutine of its own.
func (b *Browser) adoptPopup(s *session, id, opener string) {
	t, known := b.register(s, id, opener)
	if known {
		return
	}
	go func() {
		if _, err := b.finish(s.ctx, t, opener); err != nil {
			b.opts.Logf("popup of %s: %v", opener, err)
			b.popupFailed(opener)
		}
	}()
}

// holdWindows pauses the browser's document requests for
// windowRequest.
func (b *Browser) holdWindows(ctx context.Context, s *session) error {
	br := chromedp.FromContext(s.ctx).Browser
	w := &windowHold{br: br, ctx: s.ctx, logf: b.opts.Logf, early: map[*Tab]bool{}}
	paused, stop := br.Subscribe(fetch.RequestPaused.Method)
	if err := w.enable(ctx, docPattern); err != nil {
		stop()
		return err
	}
	go func() {
		defer stop()
		for v := range paused {
			var ev fetch.EventRequestPaused
			if jsonv2.Unmarshal(v, &ev) != nil || ev.Request == nil {
				continue
			}
			go b.windowRequest(s, w, &ev)
		}
	}()
	return nil
}

// windowHold is the browser's own Fetch set-up: it pauses every document
// request, and every request at all while a window with a guard is not
// set up yet, so what that window's first document sends before its own
// Fetch holds it is checked too.
type windowHold struct {
	br   *chromedp.Browser
	ctx  context.Context // the browser's session
	logf func(format string, args ...any)

	mu    sync.Mutex
	early map[*Tab]bool // the windows with a guard not set up yet
}

// enable pauses what pattern matches.
func (w *windowHold) enable(ctx context.Context, pattern *fetch.RequestPattern) error {
	_, err := cdp.Call(ctx, w.br, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{pattern}})
	return err
}

// widen pauses every request of the browser until t is set up or gone.
// It returns once that is in place, so the caller's letting t's document
// go comes after: the document's own requests follow its response.
func (w *windowHold) widen(ctx context.Context, t *Tab) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.early[t] {
		return nil
	}
	if len(w.early) == 0 {
		if err := w.enable(ctx, allPattern); err != nil {
			return err
		}
	}
	w.early[t] = true
	go func() {
		select {
		case <-t.ready: // its own Fetch holds its requests from now on
		case <-t.dead.Done():
		case <-w.ctx.Done():
		}
		w.narrow(t)
	}()
	return nil
}

// narrow forgets t, and pauses documents only once no window waits.
func (w *windowHold) narrow(t *Tab) {
	// Under mu, so a widen for another window waits for this to land.
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.early, t)
	if len(w.early) > 0 {
		return
	}
	ctx, cancel := context.WithTimeout(w.ctx, guardWait)
	defer cancel()
	if err := w.enable(ctx, docPattern); err != nil && w.ctx.Err() == nil {
		w.logf("browser requests: pause documents only: %v", err)
	}
}

// windowRequest answers a request the browser paused. One a tab sends
// before it is set up (a window's first navigation, each hop of its
// redirects, what its first document and its frames send) is checked at
// once by the guard it has from its opener; a window's page refused, the
// window is closed. Its response is not held for the rest of the set-up:
// a window's attach waits on its page, which would wait on the response;
// what the document sends meanwhile is paused here instead (widen). Any
// other request is its tab's own Fetch's, and goes on.
func (b *Browser) windowRequest(s *session, w *windowHold, ev *fetch.EventRequestPaused) {
	var refused error
	var by *Tab
	for _, c := range b.earlyChecks(w, string(ev.FrameID)) {
		if err := w.widen(c.g.ctx, c.t); err != nil && s.ctx.Err() == nil {
			b.opts.Logf("window %s: pause all its requests: %v", c.t.id, err)
		}
		if refused == nil {
			if err := c.g.check(c.g.ctx, requestOf(ev, c.t.id)); err != nil {
				refused, by = err, c.t
			}
		}
		c.g.wg.Done()
	}
	ctx, cancel := context.WithTimeout(s.ctx, guardWait)
	defer cancel()
	br := w.br
	var err error
	if refused == nil {
		_, err = cdp.Call(ctx, br, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
	} else {
		_, err = cdp.Call(ctx, br, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: 204})
		if err == nil && ev.ResourceType == network.ResourceTypeDocument && string(ev.FrameID) == by.id {
			// A window refused its first page has nothing to show, and
			// would take an agent's view into a blank: it is closed, as
			// a popup blocker would.
			_, err = cdp.Call(ctx, br, target.CloseTarget, target.CloseTargetParams{TargetID: target.ID(by.id)})
		}
	}
	if err != nil && s.ctx.Err() == nil {
		b.opts.Logf("window request %s: %v", ev.Request.URL, err)
	}
}

// earlyCheck is a guard to check a request with, on the window it is
// taken as sent by; its guard counts the check as under way.
type earlyCheck struct {
	t *Tab
	g *guardState
}

// earlyChecks are the guards that check a request of frame's: the guard
// of the tab frame is of, if it has one and is not set up yet. A frame no
// tab has told of, while windows are not set up, is of one of them (every
// tab set up tells of its frames as they attach): it is checked by each
// of their guards, and refused if one refuses.
func (b *Browser) earlyChecks(w *windowHold, frame string) []earlyCheck {
	b.mu.Lock()
	t := b.tabs[frame]
	b.mu.Unlock()
	var tabs []*Tab
	switch {
	case t != nil:
		tabs = []*Tab{t}
	default:
		b.dl.mu.Lock()
		id, known := b.dl.frames[frame]
		b.dl.mu.Unlock()
		b.mu.Lock()
		t = b.tabs[id]
		b.mu.Unlock()
		if known && t != nil {
			tabs = []*Tab{t}
		} else if !known {
			tabs = w.waiting()
		}
	}
	var out []earlyCheck
	for _, t := range tabs {
		select {
		case <-t.ready: // set up: its own Fetch holds it
			continue
		default:
		}
		t.auth.mu.Lock()
		g := t.icpt.guard
		if g != nil && !slices.ContainsFunc(out, func(c earlyCheck) bool { return c.g == g }) {
			g.wg.Add(1)
			out = append(out, earlyCheck{t: t, g: g})
		}
		t.auth.mu.Unlock()
	}
	return out
}

// waiting are the windows not set up yet.
func (w *windowHold) waiting() []*Tab {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]*Tab, 0, len(w.early))
	for t := range w.early {
		out = append(out, t)
	}
	return out
}

// holdFrames makes the tab's new out-of-process frames wait for a session
// of the tab's (adoptFrame). Caller is attach, before the page loads.
func (t *Tab) holdFrames(ctx context.Context) error {
	if t.b.opts.DisableSiteIsolation && t.b.opts.RemoteURL == "" {
		return nil // every frame is in the tab's own process
	}
	return t.holdFramesOn(ctx, t.target())
}

// holdFramesOn holds the new out-of-process frames of one session's
// document: the tab's, or a frame's. A frame waits on the session that
// auto-attach made, and only that one resumes it; chromedp routes no
// message of a session it did not open, so that session is not flat: it
// is spoken to through its parent (resumeChild).
func (t *Tab) holdFramesOn(ctx context.Context, sess *chromedp.Target) error {
	attached, stop := sess.Subscribe(target.AttachedToTarget.Method)
	t.watchWorkers(sess)
	if _, err := cdp.Call(ctx, sess, target.SetAutoAttach, target.SetAutoAttachParams{
		AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: new(false), Filter: target.Filter{{Type: "iframe"}, {Type: "worker"}},
	}); err != nil {
		stop()
		return err
	}
	go func() {
		defer stop()
		for {
			select {
			case v, ok := <-attached:
				if !ok {
					return
				}
				var ev target.EventAttachedToTarget
				if jsonv2.Unmarshal(v, &ev) != nil || ev.TargetInfo == nil {
					continue
				}
				if ev.TargetInfo.Type == "worker" {
					go t.resumeWorker(sess, []target.SessionID{ev.SessionID})
					continue
				}
				if ev.TargetInfo.Type != "iframe" {
					continue
				}
				go t.adoptFrame(sess, ev.SessionID, ev.TargetInfo.TargetID)
			case <-t.dead.Done():
				return
			}
		}
	}()
	return nil
}

// adoptFrame attaches a session to a new out-of-process frame, gives it
// the tab's Fetch set-up and wrappers, and lets it run. A frame that
// cannot be attached is resumed anyway, unguarded, and logged: it would
// otherwise never load. The session lives as long as the frame.
func (t *Tab) adoptFrame(parent *chromedp.Target, auto target.SessionID, id target.ID) {
	ctx, cancel := context.WithTimeout(t.dead, t.b.opts.CallTimeout)
	defer cancel()
	octx, ocancel := chromedp.NewContext(t.ctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	// chromedp's attach ends by evaluating in the target, which a frame
	// that has not run yet cannot answer; its session is attached by
	// then, and the rest of the set-up is holdFrame's.
	err := runWithin(ctx, octx)
	s := chromedp.FromContext(octx).Target
	if s == nil {
		ocancel()
		if context.Cause(t.dead) == nil {
			t.b.opts.Logf("tab %s: frame %s: %v", t.id, id, err)
		}
		if err := resumeChild(ctx, parent, auto); err != nil && context.Cause(t.dead) == nil {
			t.b.opts.Logf("tab %s: resume frame %s: %v", t.id, id, err)
		}
		return
	}
	// A cross-site frame's dialogs and auth challenges are asked on its
	// session.
	if err := chromedp.Listen(octx, func(ev any) { t.onAsk(s, ev) }); err != nil {
		t.b.opts.Logf("tab %s: listen to frame %s: %v", t.id, id, err)
	}
	t.auth.mu.Lock()
	if t.icpt.frames == nil {
		t.icpt.frames = map[target.ID]*chromedp.Target{}
	}
	t.icpt.frames[id] = s
	t.auth.mu.Unlock()
	if err := t.holdFrame(ctx, s); err != nil && context.Cause(t.dead) == nil {
		t.b.opts.Logf("tab %s: frame %s: %v", t.id, id, err)
	}
	if err := resumeChild(ctx, parent, auto); err != nil && context.Cause(t.dead) == nil {
		t.b.opts.Logf("tab %s: resume frame %s: %v", t.id, id, err)
	}
	go func() {
		if ch, err := chromedp.Detached(octx); err == nil {
			select {
			case <-ch:
			case <-t.dead.Done():
			}
		}
		t.auth.mu.Lock()
		if t.icpt.frames[id] == s {
			delete(t.icpt.frames, id)
		}
		delete(t.icpt.socks.scripts, s)
		delete(t.icpt.bound, s)
		t.auth.mu.Unlock()
		t.workerGone(fmt.Sprintf("%p", s)) // its workers went with it
		ocancel()
	}()
}

// holdFrame gives a frame's session the tab's Fetch set-up, and its
// wrappers while the tab is guarded; its dialogs are reported, and the
// frames it opens in other processes are held in turn.
func (t *Tab) holdFrame(ctx context.Context, s *chromedp.Target) error {
	if _, err := cdp.Call(ctx, s, page.Enable, page.EnableParams{}); err != nil {
		return fmt.Errorf("page: %w", err)
	}
	if err := t.holdFramesOn(ctx, s); err != nil {
		return fmt.Errorf("its frames: %w", err)
	}
	// The person's asks and popups in a cross-site frame are theirs too.
	if t.b.opts.AskPermissions {
		if err := t.askPermissions(ctx, s); err != nil {
			return err
		}
	}
	if err := t.personFrame(ctx, s); err != nil {
		return fmt.Errorf("the person's view: %w", err)
	}
	if err := t.startPump(ctx, s); err != nil {
		return fmt.Errorf("requests: %w", err)
	}
	if !t.guarded() {
		return nil
	}
	if err := t.applySocketsOn(ctx, s); err != nil {
		return fmt.Errorf("sockets: %w", err)
	}
	return nil
}

// resumeChild lets a frame waiting on its auto-attached session run.
// Target.sendMessageToTarget is gone from cdproto, which speaks flat
// sessions only, so it is called by name.
func resumeChild(ctx context.Context, parent *chromedp.Target, auto target.SessionID) error {
	return sendChild(ctx, parent, []target.SessionID{auto}, "Runtime.runIfWaitingForDebugger", struct{}{})
}

// sendChild sends a command to a child session of parent's, path being
// the sessions down to it (a worker's worker is its worker's child), not
// waiting for its answer: the child runs its commands in order, which is
// all that is needed of it.
func sendChild(ctx context.Context, parent *chromedp.Target, path []target.SessionID, method string, params any) error {
	msg, err := json.Marshal(map[string]any{"id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	for i := len(path) - 1; i > 0; i-- {
		msg, err = json.Marshal(map[string]any{"id": 1, "method": "Target.sendMessageToTarget",
			"params": map[string]any{"sessionId": path[i], "message": string(msg)}})
		if err != nil {
			return err
		}
	}
	return parent.Call(ctx, "Target.sendMessageToTarget", map[string]any{"sessionId": path[0], "message": string(msg)}, nil)
}

// frameSession is the tab's session of an out-of-process frame, if it
// has one.
func (t *Tab) frameSession(id target.ID) *chromedp.Target {
	t.auth.mu.Lock()
	defer t.auth.mu.Unlock()
	return t.icpt.frames[id]
}

// runWithin attaches octx's target, or gives up when ctx ends.
func runWithin(ctx, octx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(octx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
