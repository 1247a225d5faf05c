package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
)

// TestBrowserIconRefused: in a guarded tab, Chromium's download of a
// page's icon never reaches the site, while the page's own requests for
// the same image (an <img>, a fetch) go through; a tab without a guard
// leaves the download alone.
func TestBrowserIconRefused(t *testing.T) {
	t.Parallel()
	for _, guarded := range []bool{true, false} {
		t.Run(fmt.Sprintf("guarded=%t", guarded), func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var asked []string
			linked := make(chan struct{}, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/mark.png" {
					by := r.URL.Query().Get("by")
					mu.Lock()
					asked = append(asked, by)
					mu.Unlock()
					if by == "link" {
						select {
						case linked <- struct{}{}:
						default: // told once is enough
						}
					}
					w.Header().Set("Content-Type", "image/png")
					return
				}
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprint(w, `<!doctype html><title>Icon</title><link rel="icon" href="/mark.png?by=link">
<img src="/mark.png?by=img" alt=""><script>addEventListener('load', () => fetch('/mark.png?by=fetch').then(() => document.body.append('fetched')));</script>`)
			}))
			t.Cleanup(srv.Close)
			ctx := tctx(t)
			tab := openTab(t, "/form.html")
			if !guarded {
				if _, err := tab.Navigate(ctx, srv.URL+"/icon.html"); err != nil {
					t.Fatal(err)
				}
				select {
				case <-linked:
				case <-ctx.Done():
					t.Fatal("without a guard, the browser's icon download never reached the site")
				}
				return
			}
			stop, err := tab.Guard(ctx, func(context.Context, Request) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(stop)
			refused := iconRefusals(t, tab)
			if _, err := tab.Navigate(ctx, srv.URL+"/icon.html"); err != nil {
				t.Fatal(err)
			}
			// The tab's first page may have its own icon refused first.
			for url := ""; !strings.HasPrefix(url, srv.URL); {
				select {
				case url = <-refused:
				case <-ctx.Done():
					t.Fatal("the browser's icon download was never refused")
				}
				if strings.HasPrefix(url, srv.URL) && !strings.Contains(url, "by=link") {
					t.Fatalf("refused %s, want the icon the page names", url)
				}
			}
			if _, err := tab.Do(ctx, Action{Kind: ActWait, Until: &Condition{Text: "fetched"}}); err != nil {
				t.Fatalf("the page's own fetch of the image: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			slices.Sort(asked)
			if !slices.Equal(asked, []string{"fetch", "img"}) {
				t.Fatalf("the site was asked for the image by %v, want the page's fetch and <img> only", asked)
			}
		})
	}
}

// iconRefusals reports the URL of each request of the tab that failed as
// blocked by the client.
func iconRefusals(t *testing.T, tab *Tab) <-chan string {
	t.Helper()
	sent, stopSent := tab.target().Subscribe("Network.requestWillBeSent")
	failed, stopFailed := tab.target().Subscribe("Network.loadingFailed")
	out := make(chan string, 8)
	done := make(chan struct{})
	t.Cleanup(func() { close(done); stopSent(); stopFailed() })
	go func() {
		urls := map[network.RequestID]string{}
		for {
			select {
			case v := <-sent:
				var e network.EventRequestWillBeSent
				if jsonv2.Unmarshal(v, &e) == nil && e.Request != nil {
					urls[e.RequestID] = e.Request.URL
				}
			case v := <-failed:
				var e network.EventLoadingFailed
				if jsonv2.Unmarshal(v, &e) == nil && strings.Contains(e.ErrorText, "BLOCKED_BY_CLIENT") {
					out <- urls[e.RequestID]
				}
			case <-done:
				return
			}
		}
	}()
	return out
}
