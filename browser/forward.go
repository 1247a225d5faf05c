package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
)

// PointerInput is a mouse event from a live view, in the view's own
// coordinates (ViewWidth x ViewHeight showing the whole viewport).
type PointerInput struct {
	Type       string  `json:"type"` // move, down, up, wheel
	X          float64 `json:"x"`
	Y          float64 `json:"y"`
	ViewWidth  float64 `json:"viewWidth"`
	ViewHeight float64 `json:"viewHeight"`
	// PageWidth and PageHeight are the viewport, in CSS pixels, that the
	// frame on screen shows (its header's w and h). The viewport can be
	// resized while a person drives the tab, so the view maps through the
	// frame it shows, not the browser's default size; zero means that
	// default.
	PageWidth  float64 `json:"pageWidth,omitempty"`
	PageHeight float64 `json:"pageHeight,omitempty"`
	Button     string  `json:"button,omitempty"` // left, middle, right
	Clicks     int     `json:"clicks,omitempty"`
	DeltaX     float64 `json:"deltaX,omitempty"`
	DeltaY     float64 `json:"deltaY,omitempty"`
	Modifiers  int64   `json:"modifiers,omitempty"` // Alt=1 Ctrl=2 Meta=4 Shift=8
}

// KeyInput is a keyboard event from a live view, as the DOM reports it.
type KeyInput struct {
	Type      string `json:"type"` // down, up
	Key       string `json:"key"`
	Code      string `json:"code"`
	Text      string `json:"text,omitempty"`
	KeyCode   int64  `json:"keyCode,omitempty"`
	Modifiers int64  `json:"modifiers,omitempty"`
}

// ForwardPointer replays a person's mouse event from a live view as
// trusted input, mapping view coordinates to the viewport.
func (t *Tab) ForwardPointer(ctx context.Context, ev PointerInput) error {
	if ev.ViewWidth <= 0 || ev.ViewHeight <= 0 {
		return fmt.Errorf("forward pointer: %w: view size", ErrBadArgument)
	}
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return fmt.Errorf("forward pointer: %w", err)
	}
	defer cancel()
	pw, ph := ev.PageWidth, ev.PageHeight
	if pw <= 0 || ph <= 0 {
		pw, ph = float64(t.b.opts.Width), float64(t.b.opts.Height)
	}
	x := ev.X * pw / ev.ViewWidth
	y := ev.Y * ph / ev.ViewHeight
	p := input.DispatchMouseEventParams{X: x, Y: y, Modifiers: ev.Modifiers}
	switch ev.Type {
	case "move":
		p.Type = input.DispatchMouseEventTypeMouseMoved
	case "down":
		p.Type = input.DispatchMouseEventTypeMousePressed
	case "up":
		p.Type = input.DispatchMouseEventTypeMouseReleased
	case "wheel":
		p.Type, p.DeltaX, p.DeltaY = input.DispatchMouseEventTypeMouseWheel, ev.DeltaX, ev.DeltaY
	default:
		return fmt.Errorf("forward pointer: %w: type %q", ErrBadArgument, ev.Type)
	}
	if err := t.holdButtons(&p, ev); err != nil {
		return err
	}
	if p.Type == input.DispatchMouseEventTypeMouseWheel {
		// Raw, because the typed params drop a zero delta that Chrome needs.
		err = t.target().Call(cctx, input.DispatchMouseEvent.Method, map[string]any{"type": "mouseWheel", "x": x, "y": y, "deltaX": ev.DeltaX, "deltaY": ev.DeltaY, "modifiers": ev.Modifiers}, nil)
	} else {
		_, err = cdp.Call(cctx, t.target(), input.DispatchMouseEvent, p)
	}
	if err != nil {
		return fmt.Errorf("forward pointer: %w", t.fail(cctx, err))
	}
	return nil
}

// holdButtons sets a press's or release's button and keeps which are held,
// so the moves between them carry the held buttons: without them a drag
// selects no text, moves no slider's thumb and drags nothing.
func (t *Tab) holdButtons(p *input.DispatchMouseEventParams, ev PointerInput) error {
	press, release := p.Type == input.DispatchMouseEventTypeMousePressed, p.Type == input.DispatchMouseEventTypeMouseReleased
	if press || release {
		var bit int64
		switch ev.Button {
		case "", "left":
			p.Button, bit = input.MouseButtonLeft, 1
		case "middle":
			p.Button, bit = input.MouseButtonMiddle, 4
		case "right":
			p.Button, bit = input.MouseButtonRight, 2
		default:
			return fmt.Errorf("forward pointer: %w: button %q", ErrBadArgument, ev.Button)
		}
		p.ClickCount = int64(max(ev.Clicks, 1))
		held := t.fwdButtons.Load()
		if press {
			held |= bit
		} else {
			held &^= bit
		}
		t.fwdButtons.Store(held)
		p.Buttons = held
		return nil
	}
	held := t.fwdButtons.Load()
	p.Buttons = held
	switch {
	case held&1 != 0:
		p.Button = input.MouseButtonLeft
	case held&2 != 0:
		p.Button = input.MouseButtonRight
	case held&4 != 0:
		p.Button = input.MouseButtonMiddle
	}
	return nil
}

// Viewport sizes FitViewport accepts: smaller is unusable, larger costs
// more to render and encode than any screen shows.
const (
	minFitSide = 200
	maxFitSide = 4096
)

// FitViewport resizes the tab's viewport to width x height CSS pixels, so a
// live view of another shape shows the whole page with no letterbox; zero
// for both restores the default size every tab has. The page re-lays out
// (a full-height app's bottom bar moves to the new bottom edge), so an
// agent's refs from before may no longer hold.
func (t *Tab) FitViewport(ctx context.Context, width, height int) error {
	w, h := t.b.opts.Width, t.b.opts.Height
	if width != 0 || height != 0 {
		if width < minFitSide || height < minFitSide || width > maxFitSide || height > maxFitSide {
			return fmt.Errorf("fit viewport: %w: %dx%d", ErrBadArgument, width, height)
		}
		w, h = width, height
	}
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return fmt.Errorf("fit viewport: %w", err)
	}
	defer cancel()
	if _, err := cdp.Call(cctx, t.target(), emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(w), Height: int64(h), DeviceScaleFactor: t.b.opts.Scale,
	}); err != nil {
		return fmt.Errorf("fit viewport: %w", t.fail(cctx, err))
	}
	if err := t.sc.refresh(cctx); err != nil {
		return fmt.Errorf("fit viewport: restart the live view: %w", t.fail(cctx, err))
	}
	return nil
}

// ForwardKey replays a person's key event from a live view.
func (t *Tab) ForwardKey(ctx context.Context, ev KeyInput) error {
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return fmt.Errorf("forward key: %w", err)
	}
	defer cancel()
	p := input.DispatchKeyEventParams{Key: ev.Key, Code: ev.Code, Modifiers: ev.Modifiers, WindowsVirtualKeyCode: ev.KeyCode, NativeVirtualKeyCode: ev.KeyCode}
	switch ev.Type {
	case "down":
		p.Type = input.DispatchKeyEventTypeRawKeyDown
		if ev.Text != "" && ev.Modifiers&(modCtrl|modAlt|modMeta) == 0 {
			p.Type, p.Text, p.UnmodifiedText = input.DispatchKeyEventTypeKeyDown, ev.Text, ev.Text
		}
	case "up":
		p.Type = input.DispatchKeyEventTypeKeyUp
	default:
		return fmt.Errorf("forward key: %w: type %q", ErrBadArgument, ev.Type)
	}
	if _, err := cdp.Call(cctx, t.target(), input.DispatchKeyEvent, p); err != nil {
		return fmt.Errorf("forward key: %w", t.fail(cctx, err))
	}
	return nil
}
