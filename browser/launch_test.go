package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestBackKeepsPagesWhereAsked: a browser keeps pages for Back only with
// KeepPagesForBack (the person's); an agents' browser makes the page anew,
// which is what lets its navigations reuse their renderer frame.
func TestBackKeepsPagesWhereAsked(t *testing.T) {
	t.Parallel()
	ctx := tctxFor(t, 90*time.Second)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>%s</title><p>%s</p><script>addEventListener('pageshow', (e) => { window.restored = e.persisted; });</script>`, r.URL.Path, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	kept, err := Launch(ctx, Options{KeepPagesForBack: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kept.Close() })
	for _, tc := range []struct {
		name    string
		b       *Browser
		restore bool
	}{{"an agents' browser", testBrowser, false}, {"the person's browser", kept, true}} {
		tab, err := tc.b.Open(ctx, srv.URL+"/first")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tab.Navigate(ctx, srv.URL+"/second"); err != nil {
			t.Fatal(err)
		}
		if _, err := tab.Do(ctx, Action{Kind: ActBack}); err != nil {
			t.Fatal(err)
		}
		// pageshow's persisted says the document is the one left, restored.
		if title, restored := eval[string](t, tab, `document.title`), eval[bool](t, tab, `window.restored === true`); title != "/first" || restored != tc.restore {
			t.Errorf("%s: Back went to %q, restored from memory: %v", tc.name, title, restored)
		}
		_ = tab.Close(ctx) // the browser goes at the end of the test anyway
	}
}
