package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"vroom/browser"
	"vroom/internal/testenv"
)

// clickPage turns its whole page red and green by turns on each click.
const clickPage = `<!doctype html><title>Click</title>
<style>html,body{margin:0;height:100%;background:#00ff00}</style>
<p>Click anywhere: the page changes colour.</p>
<script>let red=false;addEventListener('click',()=>{red=!red;document.body.style.background=red?'#ff0000':'#00ff00'})</script>`

// BenchmarkClickToPaint measures the person's tab as a live view shows
// it: the time from a click forwarded to the tab (ForwardPointer, press
// and release) to the first screencast frame that shows its effect (p50,
// p95), and the view's sharpness: CSS pixels of the page per CSS pixel of
// the view (1 is as sharp as Chrome; above 1 the page is scaled down and
// its text softens) and the frame's width against the view's device
// pixels (1 is every device pixel drawn; 0.5 a frame drawn twice as
// large). "follow" lays the tab out at the view's size (what the person's
// tab does now); "scaled" keeps the default 1280x800 viewport shown in the
// same view (how it was). The ratio-2 cases are a HiDPI window: on a
// surface of ratio 1 (how it was) and of 2 (the desktop's browser now,
// SurfaceScale), with "follow-surface-2" the cost of that surface at
// ratio 1.
func BenchmarkClickToPaint(b *testing.B) {
	chrome, err := browser.FindChrome()
	if err != nil {
		testenv.Missing(b, fmt.Sprintf("Chromium (apt-get install chromium): %v", err))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, clickPage)
	}))
	defer site.Close()
	browsers := map[int]*browser.Browser{}
	defer func() {
		for _, br := range browsers {
			br.Close()
		}
	}()
	for _, c := range []paintCase{
		{"follow", true, 1, 1}, {"scaled", false, 1, 1},
		{"follow-ratio-2-surface-1", true, 2, 1}, {"follow-ratio-2", true, 2, 2}, {"follow-surface-2", true, 1, 2},
	} {
		b.Run(c.name, func(b *testing.B) {
			br := browsers[c.surface]
			if br == nil {
				br, err = browser.Launch(ctx, browser.Options{ExecPath: chrome, SurfaceScale: float64(c.surface)})
				if err != nil {
					b.Fatal(err)
				}
				browsers[c.surface] = br
			}
			clickToPaint(ctx, b, br, site.URL, c)
		})
	}
}

// paintCase is one view of BenchmarkClickToPaint: whether the tab follows
// the view, the window's device pixel ratio and the browser's surface's.
type paintCase struct {
	name         string
	follow       bool
	dpr, surface int
}

// clickToPaint clicks the page of a new tab in br b.N times, as
// BenchmarkClickToPaint says, and reports its figures.
func clickToPaint(ctx context.Context, b *testing.B, br *browser.Browser, url string, c paintCase) {
	// A 900x600 view, as the main view of a 1136x720 window shows the
	// person's tab.
	const viewW, viewH = 900, 600
	dpr := c.dpr
	tab, err := br.Open(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer tab.Close(context.Background())
	if c.follow {
		if err := tab.ShowAt(ctx, viewW, viewH, float64(dpr)); err != nil {
			b.Fatal(err)
		}
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	frames, err := tab.Screencast(sctx, browser.ScreencastOptions{Quality: 70, MaxWidth: viewW * dpr, MaxHeight: viewH * dpr})
	if err != nil {
		b.Fatal(err)
	}
	var lags []float64
	var frameW, pageW int
	red := false
	for b.Loop() {
		red = !red
		start := time.Now()
		for _, typ := range []string{"down", "up"} {
			if err := tab.ForwardPointer(ctx, browser.PointerInput{Type: typ, X: viewW / 2, Y: viewH / 2, ViewWidth: viewW, ViewHeight: viewH}); err != nil {
				b.Fatal(err)
			}
		}
		f, w := awaitColour(b, frames, red, start)
		lags = append(lags, float64(time.Since(start).Milliseconds()))
		frameW, pageW = w, f.Width
	}
	slices.Sort(lags)
	b.ReportMetric(lags[len(lags)/2], "p50-ms")
	b.ReportMetric(lags[min(len(lags)-1, len(lags)*95/100)], "p95-ms")
	b.ReportMetric(float64(pageW)/viewW, "css-px/device-px")
	b.ReportMetric(float64(frameW)/float64(viewW*dpr), "frame-w/view-w")
}

// awaitColour reads frames until one is mostly red (or green), and
// returns it with its width in pixels.
func awaitColour(b *testing.B, frames <-chan browser.Frame, red bool, start time.Time) (browser.Frame, int) {
	b.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case f, ok := <-frames:
			if !ok {
				b.Fatal("the screencast ended")
			}
			img, err := jpeg.Decode(bytes.NewReader(f.Data))
			if err != nil {
				b.Fatal(err)
			}
			if isRed(img) == red {
				return f, img.Bounds().Dx()
			}
		case <-deadline.C:
			b.Fatalf("no frame showed the click %v after it", time.Since(start))
		}
	}
}

// isRed reports whether the middle of img is red rather than green.
func isRed(img image.Image) bool {
	bd := img.Bounds()
	r, g, _, _ := img.At((bd.Min.X+bd.Max.X)/2, (bd.Min.Y+bd.Max.Y)*3/4).RGBA()
	return r > g
}
