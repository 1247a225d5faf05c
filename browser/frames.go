package browser

import (
	"context"
	"errors"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// frames returns the frame tree flattened, top frame first, including the
// frames of cross-site iframes that site isolation put in other processes.
// Caller holds t.op.
func (t *Tab) frames(ctx context.Context) ([]*cdp.Frame, error) {
	if l, ok := t.cachedFrames(); ok {
		return l, nil
	}
	return t.readFrames(ctx)
}

// cachedFrames is the frame list known without asking the page, once: a
// new document's, from its navigation's event, while no frame event came
// since (tookLook). Frame lists are not kept longer: a frame that closes
// itself is not always heard of before the next action. Caller holds t.op.
func (t *Tab) cachedFrames() ([]*cdp.Frame, bool) {
	l := t.framesAt.list
	t.framesAt.list = nil
	return l, l != nil && t.framesAt.gen == t.frameGen.Load()
}

// readFrames is frames, read from the sessions.
func (t *Tab) readFrames(ctx context.Context) ([]*cdp.Frame, error) {
	out, err := frameTree(ctx, t.target(), "")
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no frames")
	}
	if t.b.opts.DisableSiteIsolation && t.b.opts.RemoteURL == "" {
		// Launched without site isolation: every frame is in this target.
		return out, nil
	}
	// Without the browser's target list (or an iframe's session, below),
	// out-of-process frames are left out and the rest of the page is
	// still seen: better than no observation at all.
	infos, err := cdp.Call(ctx, chromedp.FromContext(t.s.ctx).Browser, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return out, nil
	}
	known := map[cdp.FrameID]bool{}
	for _, f := range out {
		known[f.ID] = true
	}
	for added := true; added; {
		added = false
		for _, info := range infos.TargetInfos {
			id := cdp.FrameID(info.TargetID)
			if info.Type != "iframe" || !known[info.ParentFrameID] || known[id] {
				continue
			}
			sess, err := t.oopif(ctx, info.TargetID)
			if err != nil {
				continue
			}
			fs, err := frameTree(ctx, sess, info.ParentFrameID)
			if err != nil {
				continue
			}
			for _, f := range fs {
				known[f.ID] = true
				t.sess[f.ID] = sess
			}
			out = append(out, fs...)
			added = true
		}
	}
	return out, nil
}

// frameTree flattens one target's frame tree; parent, when set, becomes
// the parent of its root (an iframe target's root frame).
func frameTree(ctx context.Context, sess *chromedp.Target, parent cdp.FrameID) ([]*cdp.Frame, error) {
	res, err := cdp.Call(ctx, sess, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	var out []*cdp.Frame
	var walk func(ft *page.FrameTree)
	walk = func(ft *page.FrameTree) {
		if ft == nil || ft.Frame == nil {
			return
		}
		out = append(out, ft.Frame)
		for _, c := range ft.ChildFrames {
			walk(c)
		}
	}
	walk(res.FrameTree)
	if parent != "" && len(out) > 0 {
		root := *out[0]
		root.ParentID = parent
		out[0] = &root
	}
	return out, nil
}

// topFrame is the tab's top frame: from the frame list when no frame event
// came since it was read, else from the tab's own frame tree (the top
// frame is always the tab's: no need for the browser's target list that
// finding out-of-process frames takes).
func (t *Tab) topFrame(ctx context.Context) (*cdp.Frame, error) {
	if l, ok := t.cachedFrames(); ok {
		return l[0], nil
	}
	fs, err := frameTree(ctx, t.target(), "")
	if err != nil {
		return nil, err
	}
	if len(fs) == 0 {
		return nil, errors.New("no frames")
	}
	return fs[0], nil
}
