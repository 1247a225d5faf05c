package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// New targets are held before they run. Chromium starts a window a page
// opens (window.open, a link or a form with a target) and a cross-site
// frame site isolation puts in its own process as targets of their own,
// whose first request would leave before anyone attached to them. So the
// browser asks to be told of each new page, and each tab of each new
// frame, paused (auto-attach with waitForDebuggerOnStart): a page is
// adopted as a Tab, with the guard of the tab that opened it (shareGuard),
// and a frame gets a session of the tab's, with its Fetch set-up and
// wrappers; then it runs. chromedp routes no message of a session it did
// not open, so each is attached a second time through chromedp, and that
// session resumes it (Runtime.runIfWaitingForDebugger resumes the target
// for whichever session sends it, for a page; a frame is resumed by its
// auto-attached session only, see holdFramesOn).

// holdNewPages makes every new page of the browser wait for its adoption.
func (b *Browser) holdNewPages(ctx context.Context, s *session) error {
	_, err := cdp.Call(ctx, chromedp.FromContext(s.ctx).Browser, target.SetAutoAttach, target.SetAutoAttachParams{
		AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: new(true), Filter: target.Filter{{Type: "page"}},
	})
	return err
}

// pageWaiting runs in the browser's read loop when a new page waits to
// run. A popup is resumed by its adoption; a tab Open made, or one the
// person opened in a browser Vroom connected to, has nothing to be held
// for and is resumed at once (Open's adoption resumes it too: the second
// resume does nothing).
func (b *Browser) pageWaiting(s *session, ev *target.EventAttachedToTarget) {
	info := ev.TargetInfo
	if info == nil || info.Type != "page" || !ev.WaitingForDebugger || info.OpenerID != "" {
		return
	}
	go b.resume(s, info.TargetID)
}

// resume lets a waiting page run, from a session of its own that it
// closes after.
func (b *Browser) resume(s *session, id target.ID) {
	ctx, cancel := context.WithTimeout(s.ctx, b.opts.CallTimeout)
	defer cancel()
	octx, ocancel := chromedp.NewContext(s.ctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	defer ocancel()
	err := runWithin(ctx, octx)
	if err == nil {
		_, err = cdp.Call(ctx, chromedp.FromContext(octx).Target, runtime.RunIfWaitingForDebugger, cdp.Empty{})
	}
	if err != nil && s.ctx.Err() == nil {
		b.opts.Logf("resume page %s: %v", id, err)
	}
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

// resumeSelf lets the tab's page run once it is attached and held as its
// opener's guard wants. A page that was not waiting ignores it.
func (t *Tab) resumeSelf(ctx context.Context) error {
	_, err := cdp.Call(ctx, t.target(), runtime.RunIfWaitingForDebugger, cdp.Empty{})
	return err
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
		AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: new(false), Filter: target.Filter{{Type: "iframe"}},
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
				if jsonv2.Unmarshal(v, &ev) != nil || ev.TargetInfo == nil || ev.TargetInfo.Type != "iframe" {
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
	return parent.Call(ctx, "Target.sendMessageToTarget", map[string]any{
		"sessionId": auto, "message": `{"id":1,"method":"Runtime.runIfWaitingForDebugger"}`,
	}, nil)
}

// frameSession is the tab's session of an out-of-process frame, if it
// has one.
func (t *Tab) frameSession(id target.ID) *chromedp.Target {
	t.auth.mu.Lock()
	defer t.auth.mu.Unlock()
	return t.icpt.frames[id]
}
