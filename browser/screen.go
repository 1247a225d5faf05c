package browser

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// ScreenshotOptions configures a screenshot.
type ScreenshotOptions struct {
	// JPEG selects JPEG at Quality (default 80); otherwise PNG.
	JPEG    bool
	Quality int
	// Marks draws every in-view control's box and ref on the image
	// (set-of-marks), from a fresh observation with Observe's options.
	Marks   bool
	Observe ObserveOptions
}

// Screenshot is an image of the viewport. One image pixel is 1/Scale CSS
// pixels, whatever the device scale factor, so (x, y) in the image is
// exactly ClickAt(x, y).
type Screenshot struct {
	Data   []byte
	Format string
	Width  int
	Height int
	Scale  float64
	// Observation is set when marks were drawn; its refs are the labels.
	Observation *Observation
}

// Screenshot captures the viewport.
func (t *Tab) Screenshot(ctx context.Context, opts ScreenshotOptions) (*Screenshot, error) {
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("screenshot %s: %w", t.id, err)
	}
	defer cancel()
	t.op.Lock()
	defer t.op.Unlock()
	s, err := t.screenshot(cctx, opts)
	if err != nil {
		return nil, fmt.Errorf("screenshot %s: %w", t.id, t.fail(cctx, err))
	}
	return s, nil
}

func (t *Tab) viewportClip(ctx context.Context, scale float64) (*page.Viewport, error) {
	// The capture multiplies the clip by the device scale factor, which a
	// headed window or an emulation can change under us: read it live.
	dpr := t.b.opts.Scale
	if w, _, err := t.mainWorld(ctx); err == nil {
		var v float64
		if t.evalIn(ctx, w, "devicePixelRatio", &v) == nil && v > 0 {
			dpr = v
		}
	}
	m, err := cdp.Call(ctx, t.target(), page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	vv := m.CSSVisualViewport
	if vv == nil {
		return nil, fmt.Errorf("no visual viewport")
	}
	// The clip is in document coordinates; dividing the scale factor out
	// keeps image pixels a fixed multiple of CSS pixels.
	return &page.Viewport{X: vv.PageX, Y: vv.PageY, Width: vv.ClientWidth, Height: vv.ClientHeight, Scale: scale / dpr}, nil
}

func (t *Tab) screenshot(ctx context.Context, opts ScreenshotOptions) (*Screenshot, error) {
	ss := t.b.opts.ScreenshotScale
	var obs *Observation
	if opts.Marks {
		o := opts.Observe.norm()
		var err error
		if obs, err = t.observe(ctx, o); err != nil {
			return nil, err
		}
		t.bases.put(o.key(), obs)
	}
	clip, err := t.viewportClip(ctx, ss)
	if err != nil {
		return nil, err
	}
	p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, Clip: clip}
	format := "png"
	if opts.JPEG && !opts.Marks {
		q := int64(opts.Quality)
		if q <= 0 {
			q = 80
		}
		p.Format, p.Quality, format = page.CaptureScreenshotFormatJpeg, &q, "jpeg"
	}
	res, err := cdp.Call(ctx, t.target(), page.CaptureScreenshot, p)
	if err != nil {
		return nil, err
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(res.Data))
	if err != nil {
		return nil, fmt.Errorf("decode screenshot: %w", err)
	}
	shot := &Screenshot{Data: res.Data, Format: format, Width: cfg.Width, Height: cfg.Height, Scale: ss, Observation: obs}
	if opts.Marks {
		img, err := png.Decode(bytes.NewReader(res.Data))
		if err != nil {
			return nil, fmt.Errorf("decode screenshot: %w", err)
		}
		rgba := image.NewRGBA(img.Bounds())
		draw.Draw(rgba, rgba.Bounds(), img, image.Point{}, draw.Src)
		drawMarks(rgba, obs, ss)
		var buf bytes.Buffer
		if opts.JPEG {
			q := opts.Quality
			if q <= 0 {
				q = 80
			}
			err = jpeg.Encode(&buf, rgba, &jpeg.Options{Quality: q})
			shot.Format = "jpeg"
		} else {
			err = png.Encode(&buf, rgba)
		}
		if err != nil {
			return nil, err
		}
		shot.Data = buf.Bytes()
	}
	return shot, nil
}

var markColors = []color.RGBA{{230, 25, 75, 255}, {60, 180, 75, 255}, {0, 130, 200, 255}, {245, 130, 48, 255}, {145, 30, 180, 255}, {240, 50, 230, 255}}

func drawMarks(img *image.RGBA, obs *Observation, scale float64) {
	face := basicfont.Face7x13
	for i, c := range obs.Controls {
		if !c.InView {
			continue
		}
		col := markColors[i%len(markColors)]
		x0, y0 := int(float64(c.Box[0])*scale), int(float64(c.Box[1])*scale)
		x1, y1 := int(float64(c.Box[0]+c.Box[2])*scale), int(float64(c.Box[1]+c.Box[3])*scale)
		r := image.Rect(x0, y0, x1, y1).Intersect(img.Bounds())
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, r.Min.Y, col)
			img.SetRGBA(x, r.Max.Y-1, col)
		}
		for y := r.Min.Y; y < r.Max.Y; y++ {
			img.SetRGBA(r.Min.X, y, col)
			img.SetRGBA(r.Max.X-1, y, col)
		}
		w := font.MeasureString(face, c.Ref).Ceil() + 4
		lx, ly := r.Min.X, r.Min.Y-14
		if ly < 0 {
			ly = r.Min.Y
		}
		label := image.Rect(lx, ly, lx+w, ly+14).Intersect(img.Bounds())
		draw.Draw(img, label, &image.Uniform{col}, image.Point{}, draw.Src)
		d := font.Drawer{Dst: img, Src: image.White, Face: face, Dot: fixed.P(lx+2, ly+11)}
		d.DrawString(c.Ref)
	}
}

// ScreencastOptions is what one live-view subscriber wants.
type ScreencastOptions struct {
	Quality   int // JPEG quality, default 60
	MaxWidth  int // default 640, a grid tile
	MaxHeight int // default 400
}

// Frame is one JPEG frame of a tab's live view.
type Frame struct {
	Data   []byte
	Seq    int64
	At     time.Time
	Width  int // the viewport in CSS pixels the frame shows
	Height int
}

type scSub struct {
	ch   chan Frame
	opts ScreencastOptions
}

// screencaster fans one CDP screencast out to subscribers. It runs only
// while somebody watches, at the highest quality and size anyone asked for.
type screencaster struct {
	t       *Tab
	mu      sync.Mutex
	subs    map[*scSub]struct{}
	running *ScreencastOptions
	seq     int64
}

// Screencast streams the tab's frames until ctx ends. The channel holds at
// most one frame: a slow reader gets the newest frame, never a backlog.
func (t *Tab) Screencast(ctx context.Context, opts ScreencastOptions) (<-chan Frame, error) {
	if err := context.Cause(t.dead); err != nil {
		return nil, fmt.Errorf("screencast %s: %w", t.id, err)
	}
	if opts.Quality <= 0 || opts.Quality > 100 {
		opts.Quality = 60
	}
	// Default to a grid tile: encoding full-size frames costs about four
	// times as much (measured here: 3 fps at 1280x800 against 14 at
	// 640x400 on a busy two-core machine).
	if opts.MaxWidth <= 0 {
		opts.MaxWidth = min(640, t.b.opts.Width)
	}
	if opts.MaxHeight <= 0 {
		opts.MaxHeight = min(400, t.b.opts.Height)
	}
	s := &scSub{ch: make(chan Frame, 1), opts: opts}
	sc := &t.sc
	sc.mu.Lock()
	if sc.subs == nil {
		sc.subs = map[*scSub]struct{}{}
	}
	sc.subs[s] = struct{}{}
	sc.mu.Unlock()
	if err := sc.reconfigure(ctx); err != nil {
		sc.remove(s)
		return nil, fmt.Errorf("screencast %s: %w", t.id, t.fail(ctx, err))
	}
	context.AfterFunc(ctx, func() {
		sc.mu.Lock()
		_, ok := sc.subs[s]
		delete(sc.subs, s)
		sc.mu.Unlock()
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		sc.reconfigure(cctx)
		// Closed last, so a reader that sees the end knows the encoder
		// was already told to stop.
		if ok {
			close(s.ch)
		}
	})
	return s.ch, nil
}

func (sc *screencaster) remove(s *scSub) {
	sc.mu.Lock()
	if _, ok := sc.subs[s]; ok {
		delete(sc.subs, s)
		close(s.ch)
	}
	sc.mu.Unlock()
}

func (sc *screencaster) stopAll() {
	sc.mu.Lock()
	for s := range sc.subs {
		close(s.ch)
	}
	sc.subs = map[*scSub]struct{}{}
	sc.running = nil
	sc.mu.Unlock()
}

// reconfigure starts, restarts or stops the CDP screencast to match the
// subscribers.
func (sc *screencaster) reconfigure(ctx context.Context) error {
	sc.mu.Lock()
	var want *ScreencastOptions
	for s := range sc.subs {
		if want == nil {
			o := s.opts
			want = &o
			continue
		}
		want.Quality = max(want.Quality, s.opts.Quality)
		want.MaxWidth = max(want.MaxWidth, s.opts.MaxWidth)
		want.MaxHeight = max(want.MaxHeight, s.opts.MaxHeight)
	}
	cur := sc.running
	if (cur == nil && want == nil) || (cur != nil && want != nil && *cur == *want) {
		sc.mu.Unlock()
		return nil
	}
	sc.running = want
	sc.mu.Unlock()
	tg := sc.t.target()
	if cur != nil {
		if _, err := cdp.Call(ctx, tg, page.StopScreencast, cdp.Empty{}); err != nil && want == nil {
			return err
		}
	}
	if want == nil {
		return nil
	}
	q := int64(want.Quality)
	_, err := cdp.Call(ctx, tg, page.StartScreencast, page.StartScreencastParams{
		Format: page.StartScreencastFormatJpeg, Quality: &q,
		MaxWidth: int64(want.MaxWidth), MaxHeight: int64(want.MaxHeight), EveryNthFrame: 1,
	})
	return err
}

// frame runs in the CDP read loop: it must not block or call CDP itself.
func (sc *screencaster) frame(ev *page.EventScreencastFrame) {
	go func() {
		ctx, cancel := context.WithTimeout(sc.t.dead, 5*time.Second)
		defer cancel()
		cdp.Call(ctx, sc.t.target(), page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: ev.SessionID})
	}()
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.seq++
	f := Frame{Data: ev.Data, Seq: sc.seq, At: time.Now(), Width: sc.t.b.opts.Width, Height: sc.t.b.opts.Height}
	if ev.Metadata != nil && ev.Metadata.DeviceWidth > 0 {
		f.Width, f.Height = int(ev.Metadata.DeviceWidth), int(ev.Metadata.DeviceHeight)
	}
	for s := range sc.subs {
		// Drop the stale frame, keep the newest.
		select {
		case <-s.ch:
		default:
		}
		select {
		case s.ch <- f:
		default:
		}
	}
}

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
