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
// p95), and the view's sharpness: CSS pixels of the page per device pixel
// of the view (1 is as sharp as Chrome; above 1 the page is scaled down
// and its text softens) and the frame's width against the view's device
// pixels. "follow" lays the tab out at the view's size (what the person's
// tab does now); "scaled" keeps the default 1280x800 viewport shown in the
// same view (how it was).
func BenchmarkClickToPaint(b *testing.B) {
	chrome, err := browser.FindChrome()
	if err != nil {
		testenv.Missing(b, fmt.Sprintf("Chromium (apt-get install chromium): %v", err))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	br, err := browser.Launch(ctx, browser.Options{ExecPath: chrome})
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, clickPage)
	}))
	defer site.Close()
	// A 900x600 view in a window of device pixel ratio 1, as the main
	// view of a 1136x720 window shows the person's tab.
	const viewW, viewH, dpr = 900, 600, 1.0
	for _, follow := range []bool{true, false} {
		name := map[bool]string{true: "follow", false: "scaled"}[follow]
		b.Run(name, func(b *testing.B) {
			tab, err := br.Open(ctx, site.URL)
			if err != nil {
				b.Fatal(err)
			}
			defer tab.Close(context.Background())
			if follow {
				if err := tab.ShowAt(ctx, viewW, viewH, dpr); err != nil {
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
			b.ReportMetric(float64(pageW)/(viewW*dpr), "css-px/device-px")
			b.ReportMetric(float64(frameW)/(viewW*dpr), "frame-w/view-w")
		})
	}
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
