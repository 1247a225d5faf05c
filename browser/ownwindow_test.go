package browser

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"vroom/internal/testkit"
)

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
// frames: a page that is drawn draws 60 a second, one behind a still tab
// of its window about one.
func keepsDrawing(t *testing.T, tab *Tab, what string) {
	t.Helper()
	from := eval[int](t, tab, `window.__frames`)
	// A tab left behind another reads visible all the same: it is not
	// hidden, only not drawn.
	what = fmt.Sprintf("10 more frames drawn in %s (its page reads %s)", what, eval[string](t, tab, `document.visibilityState`))
	testkit.WaitFor(t, 5*time.Second, what, func() bool {
		return eval[int](t, tab, `window.__frames`) >= from+10
	})
}

// TestOpenedTabsKeepDrawing: two tabs opened as agents' are; one's page
// opens a still page in a new tab (window.open, _blank), which Chromium
// puts in front of the opener's window. The other tab keeps drawing
// frames, and its screencast sends them.
func TestOpenedTabsKeepDrawing(t *testing.T) {
	t.Parallel()
	ctx := tctx(t)
	other := openTab(t, "/inner.html?other")
	opener := openTab(t, "/inner.html?opener")
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

// windowOf returns the id of the browser window holding the tab.
func windowOf(t *testing.T, tab *Tab) browser.WindowID {
	t.Helper()
	res, err := cdp.Call(tctx(t), chromedp.FromContext(tab.s.ctx).Browser, browser.GetWindowForTarget,
		browser.GetWindowForTargetParams{TargetID: target.ID(tab.ID())})
	if err != nil {
		t.Fatalf("window of %s: %v", tab.ID(), err)
	}
	return res.WindowID
}

// TestOpenOwnWindows: each tab Open makes is in a window of its own, and
// is listed and announced once; the window created ahead for the next
// Open is not in the listing.
func TestOpenOwnWindows(t *testing.T) {
	t.Parallel()
	ctx := tctx(t)
	events := testBrowser.Subscribe(ctx)
	seen := map[browser.WindowID]string{}
	var tabs []*Tab
	for i := range 3 {
		tab := openTab(t, fmt.Sprintf("/inner.html?own=%d", i))
		w := windowOf(t, tab)
		if other, ok := seen[w]; ok {
			t.Errorf("tabs %s and %s share window %d", other, tab.ID(), w)
		}
		seen[w] = tab.ID()
		tabs = append(tabs, tab)
	}
	for _, tab := range tabs {
		waitEvent(t, events, func(ev Event) bool { return ev.Kind == TabOpened && ev.Tab.ID == tab.ID() })
	}
	testBrowser.spare.mu.Lock()
	spare := testBrowser.spare.tab
	testBrowser.spare.mu.Unlock()
	for _, info := range testBrowser.Tabs(TabQuery{Limit: 1000}).Tabs {
		if spare != nil && info.ID == spare.ID() {
			t.Errorf("the window created ahead is listed: %+v", info)
		}
	}
}
