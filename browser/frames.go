package browser

import (
	"context"
	"errors"
	"slices"

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

// cachedFrames is the frame list known without asking the page: one read
// (or a new document's, from its navigation's event) while no frame event
// came since, and only when every frame in it is in the tab's own process.
// Such a frame comes, goes or navigates with an event of the tab's own
// session, heard before any answer the page sent after it. An
// out-of-process frame is not: the browser may say it is gone only after
// the page's next answer, so a list holding one is read again each time.
// Caller holds t.op.
func (t *Tab) cachedFrames() ([]*cdp.Frame, bool) {
	l := t.framesAt.list
	if l == nil || t.framesAt.gen != t.frameGen.Load() {
		return nil, false
	}
	return slices.Clone(l), true
}

// keepFrames keeps a frame list read at frame event count gen, when every
// frame in it is the tab's own session's (cachedFrames). Caller holds t.op.
func (t *Tab) keepFrames(l []*cdp.Frame, gen int64, own bool) {
	t.framesAt.list, t.framesAt.gen = nil, 0
	if own {
		t.framesAt.list, t.framesAt.gen = slices.Clone(l), gen
	}
}

// readFrames is frames, read from the sessions.
func (t *Tab) readFrames(ctx context.Context) ([]*cdp.Frame, error) {
	// The count before the read: an event that comes during it makes the
	// list one to read again.
	gen := t.frameGen.Load()
	out, err := frameTree(ctx, t.target(), "")
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no frames")
	}
	if t.b.opts.DisableSiteIsolation && t.b.opts.RemoteURL == "" {
		// Launched without site isolation: every frame is in this target.
		t.keepFrames(out, gen, true)
		return out, nil
	}
	// Without the browser's target list (or an iframe's session, below),
	// out-of-process frames are left out and the rest of the page is
	// still seen: better than no observation at all.
	infos, err := cdp.Call(ctx, chromedp.FromContext(t.s.ctx).Browser, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.keepFrames(nil, 0, false)
		return out, nil
	}
	foreign := false
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
			foreign = true
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
	t.keepFrames(out, gen, !foreign)
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
