package browser

import (
	"context"
	"testing"
	"time"

	"vroom/internal/testkit"
)

// openAsProduct opens a fixture page the way Vroom opens an agent's,
// a client's or the person's tab (Open), closed at the end of the test.
func openAsProduct(t *testing.T, path string) *Tab {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tab, err := testBrowser.Open(ctx, site.URL+path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tab.Close(ctx)
	})
	return tab
}

// countFrames starts a frame counter in the tab's page that also changes
// what it shows every frame, so a screencast has something to send.
func countFrames(t *testing.T, tab *Tab) {
	t.Helper()
	eval[bool](t, tab, `(() => {
		const p = document.body.appendChild(document.createElement('p'));
		window.__frames = 0;
		const tick = () => { window.__frames++; p.textContent = 'frame ' + window.__frames; requestAnimationFrame(tick); };
		requestAnimationFrame(tick);
		return true;
	})()`)
}

// keepsDrawing waits (up to 5 s) for the tab's page to draw 10 more
// frames: a page that is drawn draws 60 a second, one behind another tab
// of its window none.
func keepsDrawing(t *testing.T, tab *Tab, what string) {
	t.Helper()
	from := eval[int](t, tab, `window.__frames`)
	t.Logf("%s: %s", what, eval[string](t, tab, `document.visibilityState`))
	testkit.WaitFor(t, 5*time.Second, "10 more frames drawn in "+what, func() bool {
		return eval[int](t, tab, `window.__frames`) >= from+10
	})
}

// TestOpenedTabsKeepDrawing: two tabs opened as agents' are; one's page
// opens a new tab (window.open, _blank). The other keeps drawing frames,
// and its screencast keeps sending them.
func TestOpenedTabsKeepDrawing(t *testing.T) {
	t.Parallel()
	ctx := tctx(t)
	other := openAsProduct(t, "/inner.html?other")
	opener := openAsProduct(t, "/inner.html?opener")
	countFrames(t, other)
	countFrames(t, opener)
	keepsDrawing(t, other, "the first tab, before the second's page opened a tab")
	keepsDrawing(t, opener, "the second tab, before its page opened a tab")

	events := testBrowser.Subscribe(ctx)
	eval[bool](t, opener, `!!window.open(location.origin + '/inner.html?opened', '_blank')`)
	ev := waitEvent(t, events, func(ev Event) bool { return ev.Kind == TabPopup && ev.Opener == opener.ID() })
	pop, err := testBrowser.Tab(ev.Tab.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pop.Close(context.WithoutCancel(ctx)) })
	if _, err := pop.Wait(ctx, WaitFor{}, 0); err != nil {
		t.Fatal(err)
	}
	keepsDrawing(t, other, "the other agent's tab, after a page opened a tab")

	frames, err := other.Screencast(ctx, ScreencastOptions{})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(5 * time.Second)
	for n := 0; n < 5; n++ {
		select {
		case <-frames:
		case <-deadline:
			t.Fatalf("the other agent's screencast sent %d frames in 5 s", n)
		}
	}
}
