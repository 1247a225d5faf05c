package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestClickIntoFrameAfterLayoutShift clicks into a cross-site iframe just
// after the page above it grew: a click in a same-site frame posts a
// message, and the page's handler (which the click's settle, watching that
// frame, does not wait for) pushes the cross-site frame down. The browser
// routes a press into an out-of-process frame by hit-test data that lags
// layout, so without waiting for the page to be drawn the press landed
// where the frame used to be (seen as a press on the frame's <html> 35 px
// below the button, and no click).
func TestClickIntoFrameAfterLayoutShift(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/inner.html", fixtures())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>Shift</title><body>
<iframe id="same" src="/inner.html" style="width:300px;height:60px;border:0"></iframe>
<div id="gap" style="height:0"></div>
<p id="msgs"></p>
<iframe id="cross" src="%s/inner.html" style="width:300px;height:120px;border:0"></iframe>
<script>addEventListener('message', (e) => {
  document.getElementById('msgs').textContent += e.origin + ' ';
  if (e.origin === location.origin) document.getElementById('gap').style.height = (document.getElementById('gap').offsetHeight + 40) + 'px';
});</script>
</body>`, crossSite())
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := tctx(t)
	tab := openTab(t, "/inner.html") // a tab of the shared browser; the page comes next
	if _, err := tab.Navigate(ctx, srv.URL); err != nil {
		t.Fatal(err)
	}
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var inner []Control
	for _, c := range o.Controls {
		if c.Name == "Inner button" {
			inner = append(inner, c)
		}
	}
	if len(inner) != 2 {
		t.Fatalf("want both frames' buttons:\n%s", o.Compact())
	}
	for _, c := range inner {
		r, err := tab.Click(ctx, c.Ref)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Changed {
			t.Errorf("click %s had no effect: %+v", c.Ref, r)
		}
	}
	msgs := eval[string](t, tab, `document.getElementById('msgs').textContent`)
	if !strings.Contains(msgs, crossSite()) {
		t.Errorf("messages %q: the cross-site frame's button was not clicked", msgs)
	}
}
