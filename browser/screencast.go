package browser

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// ScreencastOptions is what one live-view subscriber wants: frames no
// larger than MaxWidth x MaxHeight device pixels, the size it shows them
// at. Subscribers of one tab share one screencast at the largest size and
// quality any of them asks for; each scales down what it receives.
type ScreencastOptions struct {
	Quality   int // JPEG quality, default 60
	MaxWidth  int // default 640, a grid tile; at most MaxScreencastSide
	MaxHeight int // default 400; at most MaxScreencastSide
}

// MaxScreencastSide caps a frame's width and height: a larger frame costs
// more to encode than any screen it is shown on gains (a full-HD view).
const MaxScreencastSide = 1920

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
	t *Tab
	// ops serialises the start/stop sequences sent to Chromium: two at
	// once (a view resized while the viewport is fitted) interleave into a
	// start over a running screencast, which Chromium refuses ("Screencast
	// is already active"). It guards no state: the frames' fan-out and the
	// subscribers use mu, so no reader waits on the browser.
	ops     sync.Mutex
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
	opts.MaxWidth, opts.MaxHeight = min(opts.MaxWidth, MaxScreencastSide), min(opts.MaxHeight, MaxScreencastSide)
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
		if err := sc.reconfigure(cctx); err != nil {
			sc.failed("stop", err)
		}
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
// subscribers: one screencast per tab, restarted when the largest size or
// quality asked for changes (a tile resized, a view opened or closed).
func (sc *screencaster) reconfigure(ctx context.Context) error {
	sc.ops.Lock()
	defer sc.ops.Unlock()
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
		// When the screencast restarts with new options, a failed stop
		// does not matter: the start replaces it, and its error is the
		// one returned.
		if _, err := cdp.Call(ctx, tg, page.StopScreencast, cdp.Empty{}); err != nil && want == nil {
			return err
		}
	}
	if want == nil {
		return nil
	}
	return startScreencast(ctx, tg, *want)
}

// startScreencast starts Chromium's screencast of tg with opts.
func startScreencast(ctx context.Context, tg *chromedp.Target, opts ScreencastOptions) error {
	q := int64(opts.Quality)
	_, err := cdp.Call(ctx, tg, page.StartScreencast, page.StartScreencastParams{
		Format: page.StartScreencastFormatJpeg, Quality: &q,
		MaxWidth: int64(opts.MaxWidth), MaxHeight: int64(opts.MaxHeight), EveryNthFrame: 1,
	})
	return err
}

// refresh restarts a running screencast with the same options. Chromium
// sends a frame when the page paints, and a viewport that only changed its
// size over a still page may not paint again for a long time; a restart
// always begins with a frame, so the views show the new shape at once.
func (sc *screencaster) refresh(ctx context.Context) error {
	sc.ops.Lock()
	defer sc.ops.Unlock()
	sc.mu.Lock()
	cur := sc.running
	sc.mu.Unlock()
	if cur == nil {
		return nil
	}
	tg := sc.t.target()
	// A failed stop does not matter: the start replaces it, and its error
	// is the one returned.
	if _, err := cdp.Call(ctx, tg, page.StopScreencast, cdp.Empty{}); err != nil {
		sc.failed("stop before a refresh", err)
	}
	return startScreencast(ctx, tg, *cur)
}

// frame runs in the CDP read loop: it must not block or call CDP itself.
func (sc *screencaster) frame(ev *page.EventScreencastFrame) {
	go func() {
		ctx, cancel := context.WithTimeout(sc.t.dead, 5*time.Second)
		defer cancel()
		// Chromium sends no more frames until this one is acknowledged.
		if _, err := cdp.Call(ctx, sc.t.target(), page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: ev.SessionID}); err != nil {
			sc.failed("acknowledge a frame", err)
		}
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

// failed logs a CDP screencast call that failed while the tab lives; once
// the tab is gone, every call fails and its subscribers have been closed.
func (sc *screencaster) failed(what string, err error) {
	if context.Cause(sc.t.dead) != nil {
		return
	}
	sc.t.b.opts.Logf("screencast %s: %s: %v", sc.t.id, what, err)
}
