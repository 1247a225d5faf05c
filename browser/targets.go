package browser

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
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
// Fetch holding it. Pausing the window itself until attached (auto-attach
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
	paused, stop := br.Subscribe(fetch.RequestPaused.Method)
	if _, err := cdp.Call(ctx, br, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{docPattern}}); err != nil {
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
			go b.windowRequest(s, br, &ev)
		}
	}()
	return nil
}

// windowRequest answers a document request the browser paused. One a
// tab sends before it is set up (a window's first navigation, each hop of
// its redirects) is checked at once by the guard it has from its opener;
// refused, the window is closed. Its response is not held for the rest of
// the set-up: a window's attach waits on its page, which would wait on
// the response (SECURITY.md says what that leaves). Any other request is
// its tab's own Fetch's, and goes on.
func (b *Browser) windowRequest(s *session, br *chromedp.Browser, ev *fetch.EventRequestPaused) {
	b.mu.Lock()
	t := b.tabs[string(ev.FrameID)]
	b.mu.Unlock()
	early := false
	if t != nil {
		select {
		case <-t.ready: // set up: its own Fetch holds it
		default:
			early = true
		}
	}
	var refused error
	if early {
		t.auth.mu.Lock()
		g := t.icpt.guard
		if g != nil {
			g.wg.Add(1)
		}
		t.auth.mu.Unlock()
		if g != nil {
			refused = g.check(g.ctx, requestOf(ev, t.id))
			g.wg.Done()
		}
	}
	ctx, cancel := context.WithTimeout(s.ctx, guardWait)
	defer cancel()
	var err error
	if refused == nil {
		_, err = cdp.Call(ctx, br, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
	} else {
		_, err = cdp.Call(ctx, br, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: 204})
		if err == nil {
			// A window refused its first page has nothing to show, and
			// would take an agent's view into a blank: it is closed, as
			// a popup blocker would.
			_, err = cdp.Call(ctx, br, target.CloseTarget, target.CloseTargetParams{TargetID: target.ID(t.id)})
		}
	}
	if err != nil && s.ctx.Err() == nil {
		b.opts.Logf("window request %s: %v", ev.Request.URL, err)
	}
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
					go t.resumeWorker(sess, ev.SessionID)
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
		t.auth.mu.Unlock()
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

// resumeWorker lets a dedicated worker run: auto-attach waits for one
// whatever its filter says. Its requests are its page's, which the tab's
// Fetch holds already. Its sockets are its own global's, unwrapped: a
// worker waiting for the debugger evaluates nothing before it runs.
func (t *Tab) resumeWorker(parent *chromedp.Target, auto target.SessionID) {
	ctx, cancel := context.WithTimeout(t.dead, t.b.opts.CallTimeout)
	defer cancel()
	if err := resumeChild(ctx, parent, auto); err != nil && context.Cause(t.dead) == nil {
		t.b.opts.Logf("tab %s: resume a worker: %v", t.id, err)
	}
}

// resumeChild lets a frame waiting on its auto-attached session run.
// Target.sendMessageToTarget is gone from cdproto, which speaks flat
// sessions only, so it is called by name.
func resumeChild(ctx context.Context, parent *chromedp.Target, auto target.SessionID) error {
	return sendChild(ctx, parent, auto, "Runtime.runIfWaitingForDebugger", struct{}{})
}

// sendChild sends a command to a child session, not waiting for its
// answer: the child runs its commands in order, which is all that is
// needed of it.
func sendChild(ctx context.Context, parent *chromedp.Target, auto target.SessionID, method string, params any) error {
	msg, err := json.Marshal(map[string]any{"id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	return parent.Call(ctx, "Target.sendMessageToTarget", map[string]any{"sessionId": auto, "message": string(msg)}, nil)
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
