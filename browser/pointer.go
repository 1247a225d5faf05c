package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
)

// locate resolves a ref to its frame world and the frame's offset in the
// top viewport, refusing refs of an earlier document.
func (t *Tab) locate(ctx context.Context, ref string) (*world, [2]float64, error) {
	loc, ok := t.refs[ref]
	if !ok {
		return nil, [2]float64{}, fmt.Errorf("%w: %s (refs come from an observation of this tab)", ErrUnknownRef, ref)
	}
	f, fs, err := t.refFrame(ctx, loc)
	if err != nil {
		return nil, [2]float64{}, err
	}
	if f == nil || f.LoaderID != loc.loader {
		return nil, [2]float64{}, fmt.Errorf("%s: %w", ref, ErrStaleRef)
	}
	w, err := t.world(ctx, f)
	if err != nil {
		return nil, [2]float64{}, err
	}
	off, err := t.frameOffset(ctx, f, fs)
	if err != nil {
		return nil, off, err
	}
	return w, off, nil
}

// refFrame finds the frame a ref was handed out in (nil when it is gone)
// and the frames searched. Most refs live in the tab's own process: its
// frame tree alone says whether the ref's document is current, without the
// browser-wide target listing that finding out-of-process frames takes.
func (t *Tab) refFrame(ctx context.Context, loc refLoc) (*cdp.Frame, []*cdp.Frame, error) {
	if fs, ok := t.cachedFrames(); ok {
		return frameByID(fs, loc.frame), fs, nil
	}
	fs, err := frameTree(ctx, t.target(), "")
	if err != nil {
		return nil, nil, err
	}
	if f := frameByID(fs, loc.frame); f != nil {
		return f, fs, nil
	}
	if fs, err = t.frames(ctx); err != nil {
		return nil, nil, err
	}
	return frameByID(fs, loc.frame), fs, nil
}

// frameByID returns the last frame in fs with the id, or nil.
func frameByID(fs []*cdp.Frame, id cdp.FrameID) *cdp.Frame {
	var f *cdp.Frame
	for _, x := range fs {
		if x.ID == id {
			f = x
		}
	}
	return f
}

// frameOffset adds up the boxes of the iframes holding f, up to the top.
func (t *Tab) frameOffset(ctx context.Context, f *cdp.Frame, fs []*cdp.Frame) ([2]float64, error) {
	var off [2]float64
	for cur := f; cur.ParentID != ""; {
		box, err := t.ownerBox(ctx, cur, fs, "")
		if err != nil {
			return off, err
		}
		off[0] += box.X
		off[1] += box.Y
		parent := frameByID(fs, cur.ParentID)
		if parent == nil {
			break
		}
		cur = parent
	}
	return off, nil
}

// prep is the page's answer to the checks before a pointer action.
type prep struct {
	Err      string  `json:"err"`
	Hit      string  `json:"hit"`
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
	Tag      string  `json:"tag"`
	Type     string  `json:"type"`
	Editable bool    `json:"editable"`
	Role     string  `json:"role"`
	// Layer is the ref of the layer covering the target (err "covered"),
	// handed out from NextRef, the tab's ref counter after it.
	Layer   string `json:"layer"`
	NextRef int    `json:"nextRef"`
	// FP is the page's state just before the input, after any scrolling.
	FP *fingerprint `json:"fp"`
}

func prepError(ref string, p prep) error {
	e := &ActionError{Ref: ref, Reason: p.Err, Hit: p.Hit, Layer: p.Layer}
	switch p.Err {
	case "gone":
		e.Reason = "the element is no longer on the page; observe again"
		e.Err = ErrStaleRef
	case "covered":
		e.Reason = "covered at its click point"
	case "offscreen":
		e.Reason = "could not be scrolled into the viewport"
	}
	return e
}

// prepare runs the page's checks before an input on ref and scrolls it
// into view; with focus, an editable target is focused and its content
// selected. A refusal is an *ActionError; a covered target's names the
// covering layer by a ref from the tab's one counter (refs stay unique
// across frames), registered in the target's frame so ObserveOptions.Within
// can show the layer's controls. Caller holds t.op.
func (t *Tab) prepare(ctx context.Context, w *world, ref string, focus bool) (prep, error) {
	var p prep
	if err := t.call(ctx, w, "prepare", &p, ref, true, focus, t.nextRef); err != nil {
		return p, err
	}
	if p.Err != "" {
		t.noteLayer(ref, p)
		return p, prepError(ref, p)
	}
	return p, nil
}

// noteLayer registers the covering layer's ref of a refusal, in the frame
// of the target it covers (the hit test that found it ran there).
func (t *Tab) noteLayer(ref string, p prep) {
	if p.Layer == "" {
		return
	}
	if loc, ok := t.refs[ref]; ok {
		t.refs[p.Layer] = loc
	}
	t.nextRef = max(t.nextRef, p.NextRef)
}

// pointer moves to the target, checks again that nothing covers it (moving
// can open an overlay), and returns the top-level point.
func (t *Tab) pointer(ctx context.Context, w *world, off [2]float64, ref string) (prep, float64, float64, error) {
	p, err := t.prepare(ctx, w, ref, false)
	if err != nil {
		return p, 0, 0, err
	}
	x, y := p.X+off[0], p.Y+off[1]
	if err := t.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, x, y, 0); err != nil {
		return p, 0, 0, err
	}
	var rc prep
	if err := t.call(ctx, w, "recheck", &rc, ref, p.X, p.Y, t.nextRef); err != nil {
		return p, 0, 0, err
	}
	if rc.Err != "" {
		t.noteLayer(ref, rc)
		return p, 0, 0, prepError(ref, rc)
	}
	return p, x, y, nil
}

// clickInFrame clicks a target inside an out-of-process frame. The browser
// routes a press into such a frame by hit-test data its compositor sends,
// which lags the page: right after a layout shift of the parent (a line of
// text added above the frame) a press lands at the frame's old position,
// on whatever is there, and before the frame's first frame it lands in the
// parent. So the press waits for the page to have drawn (two animation
// frames of the top document), and afterwards the frame must have counted
// a trusted press on the target itself; a press that missed is aimed again
// from fresh geometry and repeated. A press that reached nothing in the
// frame is safe to repeat; one that hit something else there was already
// sent, which the few tries bound. The verdict says whether any landed.
func (t *Tab) clickInFrame(ctx context.Context, w *world, off [2]float64, ref string, downs int, x, y float64) error {
	const presses = 3
	for range presses {
		if err := t.drawn(ctx); err != nil {
			return err
		}
		if err := t.clickPoint(ctx, x, y); err != nil {
			return err
		}
		n, on, err := t.pressedOn(ctx, w, ref, downs)
		if err != nil || on {
			return err
		}
		downs = n
		if w, off, err = t.locate(ctx, ref); err != nil {
			return err
		}
		if _, x, y, err = t.pointer(ctx, w, off, ref); err != nil {
			return err
		}
	}
	return nil
}

// drawn waits for two animation frames of the top document, after which
// the compositor's hit-test data matches its layout.
func (t *Tab) drawn(ctx context.Context) error {
	mw, _, err := t.mainWorld(ctx)
	if err != nil {
		return err
	}
	for range 2 {
		var ok bool
		if err := t.call(ctx, mw, "frame", &ok); err != nil {
			return err
		}
	}
	return nil
}

// pressedOn waits up to a few of the frame's animation frames (input
// queued for a frame is handled before its next one) for a trusted press
// beyond downs, and reports the frame's count and whether the last press
// hit the target.
func (t *Tab) pressedOn(ctx context.Context, w *world, ref string, downs int) (int, bool, error) {
	const frames = 4
	n := downs
	for range frames {
		var ok bool
		if err := t.call(ctx, w, "frame", &ok); err != nil {
			return n, false, err
		}
		if err := t.call(ctx, w, "downs", &n); err != nil {
			return n, false, err
		}
		if n != downs {
			var on bool
			err := t.call(ctx, w, "downOn", &on, ref)
			return n, on, err
		}
	}
	return n, false, nil
}

func (t *Tab) mouse(ctx context.Context, typ input.DispatchMouseEventType, x, y float64, clicks int64) error {
	p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y}
	if typ == input.DispatchMouseEventTypeMousePressed || typ == input.DispatchMouseEventTypeMouseReleased {
		p.Button = input.MouseButtonLeft
		p.ClickCount = clicks
		if typ == input.DispatchMouseEventTypeMousePressed {
			p.Buttons = 1
		}
	}
	_, err := cdp.Call(ctx, t.target(), input.DispatchMouseEvent, p)
	return err
}

func (t *Tab) clickPoint(ctx context.Context, x, y float64) error {
	if err := t.mouse(ctx, input.DispatchMouseEventTypeMousePressed, x, y, 1); err != nil {
		return err
	}
	return t.mouse(ctx, input.DispatchMouseEventTypeMouseReleased, x, y, 1)
}

// click presses and releases on the checked target.
func (t *Tab) click(ctx context.Context, s *step) error {
	p, x, y, err := t.pointer(ctx, s.w, s.off, s.a.Ref)
	if err != nil {
		return err
	}
	t.pointedAt(s, p)
	if s.w.sess != t.target() {
		err := t.clickInFrame(ctx, s.w, s.off, s.a.Ref, s.before.Downs, x, y)
		if err != nil && goneDocument(err) && t.frameLeft(ctx, s.w) {
			// The press closed its own frame: that is its effect.
			s.frameGone = true
			return nil
		}
		return err
	}
	return t.clickPoint(ctx, x, y)
}

// frameLeft reports whether w's document is no longer in the tab: its
// frame was removed, or navigated elsewhere.
func (t *Tab) frameLeft(ctx context.Context, w *world) bool {
	fs, err := t.frames(ctx)
	if err != nil {
		return false
	}
	f := frameByID(fs, w.frame)
	return f == nil || f.LoaderID != w.loader
}

// clickAt clicks at a point of the screenshot, whatever is there.
func (t *Tab) clickAt(ctx context.Context, sx, sy float64) error {
	ss := t.b.opts.ScreenshotScale
	x, y := sx/ss, sy/ss
	if err := t.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, x, y, 0); err != nil {
		return err
	}
	return t.clickPoint(ctx, x, y)
}

// scroll brings a ref into view, or turns the wheel over the viewport's
// middle.
func (t *Tab) scroll(ctx context.Context, s *step) error {
	if s.a.Ref != "" {
		var p prep
		if err := t.call(ctx, s.w, "prepare", &p, s.a.Ref, true); err != nil {
			return err
		}
		// Covered is fine: scrolling needs the element in view, not clickable.
		if p.Err != "" && p.Err != "covered" {
			return prepError(s.a.Ref, p)
		}
		return nil
	}
	amt := s.a.Amount
	if amt == 0 {
		amt = float64(t.b.opts.Height) * 0.8
	}
	var dx, dy float64
	switch s.a.Direction {
	case "up":
		dy = -amt
	case "down":
		dy = amt
	case "left":
		dx = -amt
	case "right":
		dx = amt
	}
	cx, cy := float64(t.b.opts.Width)/2, float64(t.b.opts.Height)/2
	// Sent raw: the typed params omit a zero delta, which Chrome rejects
	// for wheel events.
	return t.target().Call(ctx, input.DispatchMouseEvent.Method, map[string]any{"type": "mouseWheel", "x": cx, "y": cy, "deltaX": dx, "deltaY": dy}, nil)
}
