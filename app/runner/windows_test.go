package runner

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/browser"
)

// windowPages serves a page that counts the frames it is drawn (/moving)
// and one with a link that opens a still page in a new tab (/opener).
func windowPages(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	page := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, body)
		})
	}
	page("/moving", `<!doctype html><title>Moving</title>
<button onclick="count()">Count 60 frames</button><p id="n">0</p><p id="done"></p><script>
function count() {
  let n = 0;
  const tick = () => {
    document.getElementById('n').textContent = ++n;
    if (n === 60) document.getElementById('done').textContent = '60 frames drawn';
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}</script>`)
	page("/opener", `<!doctype html><title>Opener</title><a href="/still" target="_blank">Terms</a>`)
	page("/still", `<!doctype html><title>Still</title><p>Nothing moves here.</p>`)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestAgentTabsDrawWhenAPageOpensATab: two agents' tabs, prewarmed and
// opened as a run opens them; one clicks a link that opens a still page
// in a new tab. The other agent's page is still drawn (60 frames within
// 5 s, where one left behind another tab draws about one a second), and
// its live view sends frames.
func TestAgentTabsDrawWhenAPageOpensATab(t *testing.T) {
	t.Parallel()
	srv := windowPages(t)
	p := newTabs(t)
	ctx := apptest.Context(t)
	if err := p.Prewarm(ctx, 2); err != nil {
		t.Fatal(err)
	}
	moving, err := p.OpenTab(ctx, "agent 1", srv.URL+"/moving")
	if err != nil {
		t.Fatal(err)
	}
	opener, err := p.OpenTab(ctx, "agent 2", srv.URL+"/opener")
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []*Tab{moving, opener} {
		if err := at.loaded(ctx); err != nil {
			t.Fatal(err)
		}
	}
	octx := browser.WithOwner(ctx, "agent 2")
	o, err := opener.tb().Observe(octx, browser.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := opener.tb().Click(octx, named(t, o, "link", "Terms"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Opened) != 1 || !strings.HasSuffix(r.Opened[0].URL, "/still") {
		t.Fatalf("the click opened %+v", r.Opened)
	}
	pop, err := testBrowser.Tab(r.Opened[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pop.Close(browser.WithOwner(context.WithoutCancel(ctx), "agent 2")) })
	// The new tab has loaded and drawn: from now on nothing moves there.
	if _, err := pop.Wait(octx, browser.WaitFor{}, 0); err != nil {
		t.Fatal(err)
	}
	mctx := browser.WithOwner(ctx, "agent 1")
	o, err = moving.tb().Observe(mctx, browser.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := moving.tb().Click(mctx, named(t, o, "button", "Count 60 frames")); err != nil {
		t.Fatal(err)
	}
	if w, err := moving.tb().Wait(mctx, browser.WaitFor{Text: "60 frames drawn"}, 5*time.Second); err != nil || !w.Met {
		t.Fatalf("the other agent's page, counting frames: %+v %v", w, err)
	}
	frames, err := moving.tb().Screencast(ctx, browser.ScreencastOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const want = 20
	deadline := time.After(5 * time.Second)
	for n := 0; n < want; n++ {
		select {
		case <-frames:
		case <-deadline:
			t.Fatalf("the other agent's live view sent %d frames in 5 s, want %d", n, want)
		}
	}
}

// named returns the ref of the observation's control of the role named
// name.
func named(t *testing.T, o *browser.Observation, role, name string) string {
	t.Helper()
	for _, c := range o.Controls {
		if c.Role == role && c.Name == name {
			return c.Ref
		}
	}
	t.Fatalf("no %s %q in:\n%s", role, name, o.Compact())
	return ""
}
