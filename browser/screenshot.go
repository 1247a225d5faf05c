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
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
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
	data, err := t.capture(ctx, p)
	if err != nil {
		return nil, err
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode screenshot: %w", err)
	}
	shot := &Screenshot{Data: data, Format: format, Width: cfg.Width, Height: cfg.Height, Scale: ss, Observation: obs}
	if opts.Marks {
		img, err := png.Decode(bytes.NewReader(data))
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

// captureWait bounds one capture: captures are taken one at a time in the
// browser, and one that never ends must not hold every other tab's.
const captureWait = 10 * time.Second

// capture takes one screenshot of the tab. Chromium draws a frame for a
// capture only in the front tab of its window: a tab behind another (a
// later agent's, a blank one opened ahead of the next agent, a popup)
// waited seconds for its capture, or for ever (four in ten, measured).
// So the tab is brought to the front first, and captures are taken one at
// a time in the browser, so no other tab comes forward in between.
func (t *Tab) capture(ctx context.Context, p page.CaptureScreenshotParams) ([]byte, error) {
	t.b.capture.Lock()
	defer t.b.capture.Unlock()
	ctx, cancel := context.WithTimeout(ctx, captureWait)
	defer cancel()
	if _, err := cdp.Call(ctx, chromedp.FromContext(t.s.ctx).Browser, target.ActivateTarget, target.ActivateTargetParams{TargetID: target.ID(t.id)}); err != nil {
		return nil, fmt.Errorf("bring the tab to the front: %w", err)
	}
	res, err := cdp.Call(ctx, t.target(), page.CaptureScreenshot, p)
	if err != nil {
		return nil, err
	}
	return res.Data, nil
}
