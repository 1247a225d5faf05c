package browser

import (
	"bytes"
	"context"
	"errors"
	"image/jpeg"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"vroom/internal/testkit"
)

// openPage opens a data: page in a fresh tab, in a window of its own (as
// openTab does), closed at the test's end.
func openPage(t *testing.T, ctx context.Context, html string) *Tab {
	t.Helper()
	tab, err := testBrowser.open(ctx, "data:text/html,"+html, openRoute{window: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tab.Close(context.Background()) })
	return tab
}

// A link middle-clicked or Ctrl+clicked in the person's tab opens a page
// with no opener; it becomes a tab of the list, which loads.
func TestBackgroundTabAdopted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	events := testBrowser.Subscribe(t.Context())
	tab := openPage(t, ctx, `<a href='`+site.URL+`/counter.html?middle' style='display:block;height:100px'>middle</a><a href='`+site.URL+`/counter.html?ctrl' style='display:block;height:100px'>ctrl</a>`)
	click := func(y float64, button string, mods int64) {
		for _, typ := range []string{"down", "up"} {
			if err := tab.ForwardPointer(ctx, PointerInput{Type: typ, X: 40, Y: y, ViewWidth: 1280, ViewHeight: 800, Button: button, Modifiers: mods}); err != nil {
				t.Fatal(err)
			}
		}
	}
	click(50, "middle", 0)
	click(150, "left", modCtrl)
	for _, want := range []string{"?middle", "?ctrl"} {
		ev := waitEvent(t, events, func(ev Event) bool { return ev.Kind == TabOpened && strings.HasSuffix(ev.Tab.URL, want) })
		opened, err := testBrowser.Tab(ev.Tab.ID)
		if err != nil {
			t.Fatalf("the tab opened at %s is not in the list: %v", want, err)
		}
		t.Cleanup(func() { opened.Close(context.Background()) })
	}
}

// Back, forward and reload move the tab through its history; History
// says which way it can go.
func TestHistoryButtons(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tab := openPage(t, ctx, `<p>first`)
	if h, err := tab.History(ctx); err != nil || h.CanForward || h.CanBack {
		t.Fatalf("a fresh tab's history = %+v, %v; want no way forward or back", h, err)
	}
	if err := tab.GoForward(ctx); !errors.Is(err, ErrBadArgument) || !errors.Is(err, ErrNoHistory) {
		t.Fatalf("forward with no history: %v, want ErrBadArgument and ErrNoHistory", err)
	}
	if err := tab.GoBack(ctx); !errors.Is(err, ErrNoHistory) {
		t.Fatalf("back from the page a tab opened at: %v, want ErrNoHistory", err)
	}
	if err := tab.Load(ctx, site.URL+"/counter.html"); err != nil {
		t.Fatal(err)
	}
	atURL := func(what, suffix string) {
		testkit.WaitFor(t, 10*time.Second, what, func() bool { return strings.HasSuffix(tab.Info().URL, suffix) })
	}
	if err := tab.GoBack(ctx); err != nil {
		t.Fatal(err)
	}
	atURL("back on the first page", "<p>first")
	if h, _ := tab.History(ctx); !h.CanForward {
		t.Fatalf("after back: %+v, want a way forward", h)
	}
	if err := tab.GoForward(ctx); err != nil {
		t.Fatal(err)
	}
	atURL("forward on the links page", "/counter.html")
	eval[string](t, tab, `window.mark = 'before'`)
	if err := tab.Reload(ctx, true); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 10*time.Second, "the page reloaded", func() bool {
		res, err := cdp.Call(tctx(t), tab.target(), runtime.Evaluate, runtime.EvaluateParams{Expression: `typeof window.mark`, ReturnByValue: new(true)})
		return err == nil && res.Result != nil && string(res.Result.Value) == `"undefined"`
	})
	if err := tab.StopLoading(ctx); err != nil {
		t.Fatal(err)
	}
}

// Find in page counts the visible matches, case-insensitively, steps
// through them and clears.
func TestFindInPage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tab := openPage(t, ctx, `<p>Apple pie and apple tart.</p><p style=display:none>apple hidden</p><p>APPLE juice</p><script>document.title='x'</script>`)
	r, err := tab.FindInPage(ctx, "apple", 0)
	if err != nil || r.Matches != 3 || r.Active != 1 {
		t.Fatalf("find apple = %+v, %v; want 3 matches, the first active", r, err)
	}
	if r, _ = tab.FindInPage(ctx, "apple", -1); r.Active != 3 {
		t.Fatalf("previous from the first = %+v, want the third", r)
	}
	if r, _ = tab.FindInPage(ctx, "apple", 1); r.Active != 1 {
		t.Fatalf("next from the third = %+v, want the first", r)
	}
	if r, _ = tab.FindInPage(ctx, "pear", 1); r.Matches != 0 || r.Active != 0 {
		t.Fatalf("find pear = %+v, want none", r)
	}
	if r, _ = tab.FindInPage(ctx, "", 0); r.Matches != 0 {
		t.Fatalf("clear = %+v", r)
	}
}

// ShowAt lays the page out at the view's size and pixel ratio.
func TestShowAtReflows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tab := openPage(t, ctx, `<p>wide`)
	if err := tab.ShowAt(ctx, 900, 600, 2); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `innerWidth+'x'+innerHeight+'@'+devicePixelRatio`); got != "900x600@2" {
		t.Fatalf("viewport = %q; want 900x600@2", got)
	}
	// The frames say the viewport in CSS pixels, which the view maps the
	// person's pointer through. (Headless Chromium's screencast captures
	// at CSS pixels whatever the emulated ratio: a frame for a view of
	// ratio 2 is 900 pixels wide, drawn twice as large.)
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	frames, err := tab.Screencast(sctx, ScreencastOptions{MaxWidth: 1800, MaxHeight: 1200})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-frames:
		img, err := jpeg.DecodeConfig(bytes.NewReader(f.Data))
		if err != nil || f.Width != 900 || f.Height != 600 || img.Width < 900 {
			t.Fatalf("frame of %dx%d CSS px, %d px wide (%v); want 900x600, at least 900 wide", f.Width, f.Height, img.Width, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no frame")
	}
	if err := tab.ShowAt(ctx, 10, 600, 1); !errors.Is(err, ErrBadArgument) {
		t.Fatalf("a 10 px wide view: %v, want ErrBadArgument", err)
	}
}
