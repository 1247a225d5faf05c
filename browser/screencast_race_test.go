package browser

import (
	"context"
	"sync"
	"testing"
)

// TestScreencastRestartsDoNotCollide fits a tab's viewport while views of
// other sizes open on its screencast, as a take-over does (the tile grows
// as the viewport is fitted). Each changes the running screencast; run at
// once, their stop/start sequences interleaved into a start over a running
// screencast, which Chromium refuses ("Screencast is already active").
func TestScreencastRestartsDoNotCollide(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/anim.html")
	ctx := tctx(t)
	view, cancel := context.WithCancel(ctx)
	defer cancel()
	if _, err := tab.Screencast(view, ScreencastOptions{MaxWidth: 640, MaxHeight: 400}); err != nil {
		t.Fatal(err)
	}
	for round := range 10 {
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		wg.Add(2)
		go func() {
			defer wg.Done()
			w := 1280
			if round%2 == 1 {
				w = 0 // restore
			}
			errs <- tab.FitViewport(ctx, w, 714*w/1280)
		}()
		go func() {
			defer wg.Done()
			_, err := tab.Screencast(view, ScreencastOptions{MaxWidth: 700 + 10*round, MaxHeight: 500})
			errs <- err
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
