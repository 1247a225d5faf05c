package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/app/config"
	"vroom/browser"
	"vroom/internal/testkit"
)

// sizePage reports its viewport whenever it changes, and opens a window
// when clicked.
const sizePage = `<!doctype html><title>Size</title><body style="margin:0;height:100vh">
<script>
const rep=()=>fetch('/size?v='+innerWidth+'x'+innerHeight+'@'+devicePixelRatio+'&p='+location.pathname)
rep();addEventListener('resize',rep)
addEventListener('click',()=>window.open('/popup'))
</script>`

// sizeLog is what the size page reported.
type sizeLog struct {
	mu   sync.Mutex
	last map[string]string // path → its newest viewport
}

func (l *sizeLog) of(path string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last[path]
}

func sizeSite(t *testing.T) (*httptest.Server, *sizeLog) {
	log := &sizeLog{last: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/size" {
			log.mu.Lock()
			log.last[r.URL.Query().Get("p")] = r.URL.Query().Get("v")
			log.mu.Unlock()
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, sizePage)
	}))
	t.Cleanup(srv.Close)
	return srv, log
}

// The person's tab is laid out at its view's size and pixel ratio, and
// zoomed per site: laid out narrower, drawn larger, back at Ctrl+0.
func TestShowViewAndZoom(t *testing.T) {
	d := newDesk(t)
	site, log := sizeSite(t)
	tab, err := d.NewTab(site.URL + "/a")
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, tab.ID)
	at := func(what, want string) {
		t.Helper()
		testkit.WaitFor(t, 10*time.Second, what+" ("+want+")", func() bool { return log.of("/a") == want })
	}
	at("the default viewport", "1280x800@1")
	if err := d.ShowView(tab.ID, 900, 600, 2); err != nil {
		t.Fatal(err)
	}
	at("the view's size at its pixel ratio", "900x600@2")
	z, err := d.Zoom(tab.ID, 1)
	if err != nil || z != 1.1 {
		t.Fatalf("zoom in = %g, %v; want 1.1", z, err)
	}
	testkit.WaitFor(t, 10*time.Second, "110%: 818x545 at a ratio of 2.2", func() bool { return strings.HasPrefix(log.of("/a"), "818x545@2.2") })
	if n, _ := d.NavState(tab.ID); n.Zoom != 1.1 {
		t.Errorf("the toolbar's zoom = %g, want 1.1", n.Zoom)
	}
	host := strings.TrimPrefix(site.URL, "http://")
	if st, err := d.store.Load(); err != nil || config.ZoomOf(st.Browser.Zoom, host) != 1.1 {
		t.Errorf("the settings file keeps %+v (%v), want %s at 1.1", st.Browser.Zoom, err, host)
	}
	// Settings' reset lays the shown tab out at 100 % and forgets the site.
	if st, err := d.ForgetZoom(host); err != nil || len(st.Settings.Browser.Zoom) != 0 {
		t.Fatalf("forget zoom: %+v, %v", st.Settings.Browser.Zoom, err)
	}
	at("back at 100%", "900x600@2")
	if _, err := d.Zoom(tab.ID, 1); err != nil {
		t.Fatal(err)
	}
	if z, _ := d.Zoom(tab.ID, 0); z != 1 {
		t.Fatalf("zoom reset = %g", z)
	}
	at("back at 100% by Ctrl+0", "900x600@2")
	if err := d.ShowView(tab.ID, 0, 600, 1); err == nil || !strings.Contains(err.Error(), "bad size") {
		t.Errorf("a view of no width: %v", err)
	}
}

// A window the shown tab opens becomes the shown tab, as in Chrome; a
// closed tab comes back with ReopenClosedTab.
func TestPopupShownAndClosedTabReopened(t *testing.T) {
	d := newDesk(t)
	site, log := sizeSite(t)
	tab, err := d.NewTab(site.URL + "/a")
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, tab.ID)
	testkit.WaitFor(t, 10*time.Second, "the page loaded", func() bool { return log.of("/a") != "" })
	for _, typ := range []string{"down", "up"} {
		if err := d.PointerInput(tab.ID, browser.PointerInput{Type: typ, X: 320, Y: 200, ViewWidth: 640, ViewHeight: 400, Button: "left", Clicks: 1}); err != nil {
			t.Fatal(err)
		}
	}
	testkit.WaitFor(t, 10*time.Second, "the popup shown", func() bool {
		v, _ := d.Tabs()
		return v.Active != tab.ID && hasTab(v, v.Active, nil) && strings.HasSuffix(activeURL(v), "/popup")
	})
	v, _ := d.Tabs()
	closeLater(t, v.Active)
	if err := d.CloseTab(v.Active); err != nil {
		t.Fatal(err)
	}
	again, err := d.ReopenClosedTab()
	if err != nil || !strings.HasSuffix(again.URL, "/popup") {
		t.Fatalf("reopened %+v, %v; want the popup's page", again, err)
	}
	closeLater(t, again.ID)
	if v, _ := d.Tabs(); v.Active != again.ID {
		t.Errorf("the reopened tab is not shown: active %s", v.Active)
	}
	if _, err := d.ReopenClosedTab(); err == nil {
		t.Error("a second reopen with nothing closed succeeded")
	}
}

func activeURL(v TabsView) string {
	for _, t := range v.Tabs {
		if t.ID == v.Active {
			return t.URL
		}
	}
	return ""
}

func TestNextZoom(t *testing.T) {
	for _, c := range []struct {
		z    float64
		step int
		want float64
	}{{1, 1, 1.1}, {1, -1, 0.9}, {5, 1, 5}, {0.25, -1, 0.25}, {1.75, 0, 1}, {1.2, 1, 1.25}, {1.2, -1, 1.1}} {
		if got := nextZoom(c.z, c.step); got != c.want {
			t.Errorf("nextZoom(%g, %d) = %g, want %g", c.z, c.step, got, c.want)
		}
	}
	if siteOf("https://a.example:8443/x") != "a.example:8443" || siteOf("about:blank") != "" {
		t.Error("siteOf")
	}
}

// Back and forward are sent as keys are, without the window knowing the
// tab's history: they go where there is a page to go to, and a tab with
// none before or after it stays where it is without an error, as in
// Chrome. An unknown tab is an error.
func TestGoBackForwardAsKeys(t *testing.T) {
	d := newDesk(t)
	site, _ := sizeSite(t)
	info, err := d.NewTab(site.URL + "/a")
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, info.ID)
	tab, err := d.findTab(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	at := func(what, path string) {
		t.Helper()
		testkit.WaitFor(t, 10*time.Second, what+" at "+path, func() bool { return tab.Info().URL == site.URL+path })
	}
	at("the new tab", "/a")
	if err := d.GoBack(info.ID); err != nil {
		t.Errorf("back with no page before: %v, want nothing done", err)
	}
	if _, err := tab.Navigate(t.Context(), site.URL+"/b"); err != nil {
		t.Fatal(err)
	}
	if err := d.GoForward(info.ID); err != nil {
		t.Errorf("forward with no page after: %v, want nothing done", err)
	}
	at("still", "/b")
	if err := d.GoBack(info.ID); err != nil {
		t.Fatal(err)
	}
	at("back", "/a")
	if err := d.GoForward(info.ID); err != nil {
		t.Fatal(err)
	}
	at("forward", "/b")
	if err := d.GoBack("no-such-tab"); err == nil {
		t.Error("back in an unknown tab: no error")
	}
}
