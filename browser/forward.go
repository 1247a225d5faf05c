package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
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
	x := ev.X * float64(t.b.opts.Width) / ev.ViewWidth
	y := ev.Y * float64(t.b.opts.Height) / ev.ViewHeight
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
	if p.Type == input.DispatchMouseEventTypeMousePressed || p.Type == input.DispatchMouseEventTypeMouseReleased {
		switch ev.Button {
		case "", "left":
			p.Button = input.MouseButtonLeft
		case "middle":
			p.Button = input.MouseButtonMiddle
		case "right":
			p.Button = input.MouseButtonRight
		default:
			return fmt.Errorf("forward pointer: %w: button %q", ErrBadArgument, ev.Button)
		}
		p.ClickCount = int64(max(ev.Clicks, 1))
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
