package browser

import (
	"context"
	"fmt"
	"math"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/input"
)

// A drag is what a hand makes: press on the source, move in steps (each
// after the page has drawn, so a pointer-driven sortable sees its
// activation move and then where the pointer is), release over the target.
// An HTML5 drag and drop is the same press and moves with the browser's
// drag intercepted: Chromium starts a native drag on the first moves over
// a draggable element, which a headless browser cannot carry; intercepted,
// its data comes back and the rest of the drag is sent as the drag events
// (dragenter, dragover at every step, drop) the page listens for.

// dragSteps bounds the moves of one drag: a step every 20 px or so, at
// least dragMinSteps, so libraries with an activation distance and those
// that track the pointer on every move both see a hand.
const (
	dragMinSteps = 8
	dragMaxSteps = 30
	dragStepPx   = 20
)

// validateDrag checks a drag's target: a ref, or an offset.
func validateDrag(a Action) error {
	if err := needRef(a); err != nil {
		return err
	}
	if a.To == "" && a.DX == 0 && a.DY == 0 {
		return fmt.Errorf("%w: drag needs a target: to (a ref) or dx/dy (CSS pixels)", ErrBadArgument)
	}
	if a.To != "" && (a.DX != 0 || a.DY != 0) {
		return fmt.Errorf("%w: drag takes to or dx/dy, not both", ErrBadArgument)
	}
	return nil
}

// drag presses on the checked source, moves in steps to the target and
// releases there.
func (t *Tab) drag(ctx context.Context, s *step) error {
	p, x0, y0, err := t.pointer(ctx, s.w, s.off, s.a.Ref)
	if err != nil {
		return err
	}
	t.pointedAt(s, p)
	x1, y1, err := t.dropPoint(ctx, s, x0, y0)
	if err != nil {
		return err
	}
	if err := t.setInterceptDrags(ctx, true); err != nil {
		return err
	}
	defer func() {
		// Best effort: the next drag sets it again, and a tab that went
		// away has nothing to restore.
		if err := t.setInterceptDrags(context.WithoutCancel(ctx), false); err != nil && context.Cause(t.dead) == nil {
			t.b.opts.Logf("tab %s: drag: stop intercepting: %v", t.id, err)
		}
	}()
	intercepted, stop := t.target().Subscribe(input.DragIntercepted.Method)
	defer stop()
	if err := t.mouse(ctx, input.DispatchMouseEventTypeMousePressed, x0, y0, 1); err != nil {
		return err
	}
	steps := int(math.Hypot(x1-x0, y1-y0) / dragStepPx)
	steps = min(max(steps, dragMinSteps), dragMaxSteps)
	var data *input.DragData
	for i := 1; i <= steps; i++ {
		x, y := x0+(x1-x0)*float64(i)/float64(steps), y0+(y1-y0)*float64(i)/float64(steps)
		if data == nil {
			if err := t.moveHeld(ctx, x, y); err != nil {
				return err
			}
			data = takeDrag(intercepted)
			if data != nil {
				s.r.Note = "an HTML5 drag"
				if err := t.dragEvent(ctx, input.DispatchDragEventTypeDragEnter, x, y, data); err != nil {
					return err
				}
			}
		} else if err := t.dragEvent(ctx, input.DispatchDragEventTypeDragOver, x, y, data); err != nil {
			return err
		}
		if err := t.drawn(ctx); err != nil {
			return err
		}
	}
	if data != nil {
		if err := t.dragEvent(ctx, input.DispatchDragEventTypeDrop, x1, y1, data); err != nil {
			return err
		}
	}
	return t.mouse(ctx, input.DispatchMouseEventTypeMouseReleased, x1, y1, 1)
}

// dropPoint is where the drag ends: the middle of the target's shown box,
// which must be in view with the source (it is not scrolled to, which
// would move the source), or the source's point moved by dx, dy, which
// must be in the viewport.
func (t *Tab) dropPoint(ctx context.Context, s *step, x0, y0 float64) (float64, float64, error) {
	if s.a.To == "" {
		x, y := x0+s.a.DX, y0+s.a.DY
		if x < 0 || y < 0 || x >= float64(t.b.opts.Width) || y >= float64(t.b.opts.Height) {
			return 0, 0, fmt.Errorf("%w: the drag would end at (%g, %g), outside the %dx%d viewport", ErrOffscreen, x, y, t.b.opts.Width, t.b.opts.Height)
		}
		return x, y, nil
	}
	w, off, err := t.locate(ctx, s.a.To)
	if err != nil {
		return 0, 0, err
	}
	var p prep
	if err := t.call(ctx, w, "prepare", &p, s.a.To, false, false, t.nextRef); err != nil {
		return 0, 0, err
	}
	switch p.Err {
	case "", "covered":
		// Covered is fine: a drop zone lies under what is dropped on it.
		return p.X + off[0], p.Y + off[1], nil
	case "offscreen":
		return 0, 0, &ActionError{Ref: s.a.To, Reason: "not in view with the source: scroll so both show, or drag by dx/dy"}
	}
	return 0, 0, prepError(s.a.To, p)
}

// moveHeld moves the pointer with the left button down.
func (t *Tab) moveHeld(ctx context.Context, x, y float64) error {
	_, err := cdp.Call(ctx, t.target(), input.DispatchMouseEvent, input.DispatchMouseEventParams{
		Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y, Button: input.MouseButtonLeft, Buttons: 1,
	})
	return err
}

// takeDrag returns the data of a drag Chromium intercepted, if one was.
func takeDrag(ch <-chan jsonv2.Value) *input.DragData {
	select {
	case v, ok := <-ch:
		if !ok {
			return nil
		}
		var ev input.EventDragIntercepted
		if jsonv2.Unmarshal(v, &ev) != nil || ev.Data == nil {
			return nil
		}
		return ev.Data
	default:
		return nil
	}
}

func (t *Tab) dragEvent(ctx context.Context, typ input.DispatchDragEventType, x, y float64, data *input.DragData) error {
	_, err := cdp.Call(ctx, t.target(), input.DispatchDragEvent, input.DispatchDragEventParams{Type: typ, X: x, Y: y, Data: data})
	return err
}

func (t *Tab) setInterceptDrags(ctx context.Context, on bool) error {
	_, err := cdp.Call(ctx, t.target(), input.SetInterceptDrags, input.SetInterceptDragsParams{Enabled: on})
	return err
}
