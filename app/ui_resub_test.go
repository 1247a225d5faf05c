package app

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"vroom/browser"
)

// A live view closed and opened again on the same tab (the active tab's
// view giving way to an agent's tile) gets frames again.
func TestLiveViewReopened(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, animatedPage)
	}))
	t.Cleanup(site.Close)
	tab, err := testBrowser.Open(t.Context(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tab.Close(context.Background()) })
	for i, size := range []int{1280, 640, 640} {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		frames, err := tab.Screencast(ctx, browser.ScreencastOptions{MaxWidth: size, MaxHeight: size * 5 / 8})
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < 3; n++ {
			if _, ok := <-frames; !ok {
				t.Fatalf("view %d (%dpx): the stream ended after %d frames", i, size, n)
			}
		}
		cancel()
	}
}
