package app

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image/jpeg"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/browser"
	"vroom/internal/testkit"
)

// liveFrames subscribes to tab's live stream at w x h device pixels and
// sends each frame's header and JPEG size on the returned channel (the
// newest only, as the UI keeps) until ctx ends.
func liveFrames(t *testing.T, ctx context.Context, live *liveServer, tab string, w, h int) <-chan [4]int {
	t.Helper()
	url := fmt.Sprintf("%s/live/%s?w=%d&h=%d&q=50&token=%s", live.URL(), tab, w, h, live.token)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("live %dx%d: status %d", w, h, resp.StatusCode)
	}
	out := make(chan [4]int, 1)
	go func() {
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		for {
			hdr, data, err := readFrame(r)
			if err != nil {
				return
			}
			cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
			if err != nil {
				continue
			}
			select {
			case <-out:
			default:
			}
			out <- [4]int{hdr.W, hdr.H, cfg.Width, cfg.Height}
		}
	}()
	return out
}

// awaitFrame waits for a frame on frames that satisfies ok, failing with
// the last one seen.
func awaitFrame(t *testing.T, what string, frames <-chan [4]int, ok func(f [4]int) bool) [4]int {
	t.Helper()
	deadline := time.After(15 * time.Second)
	var last [4]int
	for {
		select {
		case f := <-frames:
			if ok(f) {
				return f
			}
			last = f
		case <-deadline:
			t.Fatalf("%s: not within 15 s; last frame: page %dx%d, JPEG %dx%d", what, last[0], last[1], last[2], last[3])
		}
	}
}

// Frames come at the size a view asks for; two views of one tab share one
// screencast at the larger size, and when the large one closes the small
// one gets small frames again.
func TestLiveSizedFrames(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	tab, live := liveTab(t, ctx, pageHandler(animatedPage))

	bigCtx, closeBig := context.WithCancel(ctx)
	big := liveFrames(t, bigCtx, live, tab.ID(), 1040, 650)
	awaitFrame(t, "a 1040x650 frame for one large tile", big, func(f [4]int) bool { return f[2] == 1040 && f[3] == 650 })
	small := liveFrames(t, ctx, live, tab.ID(), 320, 200)
	awaitFrame(t, "the small view sharing the large screencast", small, func(f [4]int) bool { return f[2] == 1040 })
	closeBig()
	awaitFrame(t, "320x200 frames once the large view closed", small, func(f [4]int) bool { return f[2] == 320 && f[3] == 200 })

	huge := liveFrames(t, ctx, live, tab.ID(), 5000, 5000)
	f := awaitFrame(t, "a frame for a view larger than the page", huge, func(f [4]int) bool { return f[2] > 320 })
	if f[2] > browser.MaxScreencastSide || f[2] > 1280 {
		t.Fatalf("a 5000x5000 view got a %dx%d frame, want at most the page's 1280 and the cap", f[2], f[3])
	}
}

// fitPage records where clicks land and how far the page scrolled, and
// fills the viewport with a bar pinned to its bottom edge.
const fitPage = `<!doctype html><title>fit</title>
<style>body{margin:0;height:4000px} #bar{position:fixed;left:0;right:0;bottom:0;height:40px;background:#e0f}</style>
<div id=bar></div>
<script>
onclick=e=>fetch('/click?x='+e.clientX+'&y='+e.clientY+'&h='+innerHeight);
let t=0;onscroll=()=>{clearTimeout(t);t=setTimeout(()=>fetch('/scroll?y='+scrollY),50)};
</script>`

// pageLog is what fitPage reported.
type pageLog struct {
	mu     sync.Mutex
	clicks []string
	scroll []string
}

func (l *pageLog) last(which *[]string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(*which) == 0 {
		return ""
	}
	return (*which)[len(*which)-1]
}

// A taken-over tab's viewport takes the view's shape and comes back; the
// person's clicks land where they point in the frame shown (whatever its
// viewport), and the wheel scrolls the page.
func TestLiveFitViewport(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	log := &pageLog{}
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.mu.Lock()
		defer log.mu.Unlock()
		switch r.URL.Path {
		case "/click":
			log.clicks = append(log.clicks, r.URL.RawQuery)
		case "/scroll":
			log.scroll = append(log.scroll, r.URL.RawQuery)
		default:
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, fitPage)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	tab, live := liveTab(t, ctx, page)
	frames := liveFrames(t, ctx, live, tab.ID(), 1040, 580)

	if err := tab.FitViewport(ctx, 1280, 714); err != nil {
		t.Fatal(err)
	}
	awaitFrame(t, "frames of the fitted 1280x714 viewport", frames, func(f [4]int) bool { return f[0] == 1280 && f[1] == 714 && f[2] == 1040 })
	// A click at 3/4 of a 1040x580 view of the fitted page lands at 3/4
	// of the 1280x714 viewport.
	for _, typ := range []string{"down", "up"} {
		ev := browser.PointerInput{Type: typ, X: 780, Y: 435, ViewWidth: 1040, ViewHeight: 580, PageWidth: 1280, PageHeight: 714}
		if err := tab.ForwardPointer(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	testkit.WaitFor(t, 10*time.Second, "the click reported", func() bool { return log.last(&log.clicks) != "" })
	if got := log.last(&log.clicks); got != "x=960&y=535&h=714" {
		t.Fatalf("the click landed at %s, want x=960&y=535&h=714", got)
	}
	wheel := browser.PointerInput{Type: "wheel", X: 500, Y: 300, ViewWidth: 1040, ViewHeight: 580, PageWidth: 1280, PageHeight: 714, DeltaY: 400}
	if err := tab.ForwardPointer(ctx, wheel); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 10*time.Second, "the wheel scrolled the page", func() bool { return strings.HasPrefix(log.last(&log.scroll), "y=") && log.last(&log.scroll) != "y=0" })

	if err := tab.FitViewport(ctx, 0, 0); err != nil {
		t.Fatal(err)
	}
	awaitFrame(t, "frames of the restored 1280x800 viewport", frames, func(f [4]int) bool { return f[0] == 1280 && f[1] == 800 })
	if err := tab.FitViewport(ctx, 50, 50); err == nil {
		t.Fatal("a 50x50 viewport was accepted")
	}
}
