package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"vroom/browser"
)

const animatedPage = `<!doctype html><title>anim</title>
<div id=box style="width:200px;height:200px;background:red"></div>
<script>let n=0;function f(){n++;box.style.background='hsl('+(n*7%360)+',80%,50%)';box.textContent=n;requestAnimationFrame(f)}f()</script>`

// readFrame reads one record of the live stream.
func readFrame(r *bufio.Reader) (frameHeader, []byte, error) {
	var h frameHeader
	var n uint32
	if err := binary.Read(r, binary.BigEndian, &n); err != nil {
		return h, nil, err
	}
	hdr := make([]byte, n)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return h, nil, err
	}
	if err := json.Unmarshal(hdr, &h); err != nil {
		return h, nil, err
	}
	if err := binary.Read(r, binary.BigEndian, &n); err != nil {
		return h, nil, err
	}
	jpeg := make([]byte, n)
	_, err := io.ReadFull(r, jpeg)
	return h, jpeg, err
}

// The live endpoint streams real JPEG frames of a tab, newest first, and
// refuses a caller without the launch's token.
func TestLiveStream(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	tab, live := liveTab(t, ctx, pageHandler(animatedPage))

	resp, err := http.Get(live.URL() + "/live/" + tab.ID() + "?token=wrong")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("wrong token: status %d, want 403", resp.StatusCode)
	}
	resp, err = http.Get(live.URL() + "/live/nope?token=" + live.token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown tab: status %d, want 404", resp.StatusCode)
	}

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, live.URL()+"/live/"+tab.ID()+"?w=640&h=400&q=50&token="+live.token, nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	r := bufio.NewReader(resp.Body)
	var last int64 = -1
	for i := 0; i < 5; i++ {
		h, jpeg, err := readFrame(r)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if !bytes.HasPrefix(jpeg, []byte{0xff, 0xd8}) {
			t.Fatalf("frame %d is not a JPEG", i)
		}
		if h.Seq <= last {
			t.Fatalf("frame seq %d after %d: not newest-first", h.Seq, last)
		}
		if h.W != 1280 || h.H != 800 || h.At == 0 {
			t.Fatalf("header %+v", h)
		}
		last = h.Seq
	}
}

// pageHandler serves one HTML page at every path.
func pageHandler(html string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, html)
	})
}

// liveTab opens the page h serves in a tab of the shared browser, and a
// live server over the shared browser's tabs; both close when the test
// ends.
func liveTab(t *testing.T, ctx context.Context, h http.Handler) (*browser.Tab, *liveServer) {
	t.Helper()
	site := httptest.NewServer(h)
	t.Cleanup(site.Close)
	tab, err := testBrowser.Open(ctx, site.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tab.Close(context.Background()) })
	live, err := newLiveServer(testBrowser.Tab)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { live.Close() })
	return tab, live
}

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
