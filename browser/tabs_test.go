package browser

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// waitEvent reads events until one matches or the deadline passes.
func waitEvent(t *testing.T, ch <-chan Event, match func(Event) bool) Event {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatal("event channel closed")
			}
			if match(ev) {
				return ev
			}
		case <-timeout:
			t.Fatal("timed out waiting for an event")
		}
	}
}

func TestPopupBelongsToOpenerOwner(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/popup.html")
	ctx := tctx(t)
	events := testBrowser.Subscribe(ctx)
	if _, err := tab.Lease(ctx, "agent-pop"); err != nil {
		t.Fatal(err)
	}
	actx := WithOwner(ctx, "agent-pop")
	o, err := tab.Observe(actx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Click(actx, find(t, o, "button", "Open popup").Ref); err != nil {
		t.Fatal(err)
	}
	ev := waitEvent(t, events, func(ev Event) bool { return ev.Kind == TabPopup && ev.Opener == tab.ID() })
	pop, err := testBrowser.Tab(ev.Tab.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pop.Close(WithOwner(context.Background(), "agent-pop")) })
	if pop.Info().Owner != "agent-pop" {
		t.Errorf("popup owner = %q", pop.Info().Owner)
	}
	if _, err := pop.Observe(ctx, ObserveOptions{}); !errors.Is(err, ErrTabLeased) {
		t.Errorf("someone else observed the popup: %v", err)
	}
	po, err := pop.Observe(actx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(po.URL, "/inner.html") {
		t.Errorf("popup at %s", po.URL)
	}
	l := testBrowser.Tabs(TabQuery{Search: "inner.html", Owner: "agent-pop"})
	if l.Matched < 1 {
		t.Errorf("listing: %s", l)
	}
}

func TestTabEventsAndListing(t *testing.T) {
	t.Parallel()
	ctx := tctx(t)
	events := testBrowser.Subscribe(ctx)
	tab := openTab(t, "/form.html")
	waitEvent(t, events, func(ev Event) bool {
		return ev.Tab.ID == tab.ID() && ev.Kind == TabUpdated && ev.Tab.Title == "Long form"
	})
	if _, err := tab.Navigate(ctx, site.URL+"/checkbox.html"); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, func(ev Event) bool {
		return ev.Tab.ID == tab.ID() && ev.Kind == TabUpdated && strings.HasSuffix(ev.Tab.URL, "/checkbox.html") && !ev.Tab.Loading && ev.Tab.Favicon != ""
	})
	l := testBrowser.Tabs(TabQuery{Search: "styled checkbox"})
	if l.Matched < 1 || l.Tabs[0].Title != "Styled checkbox" {
		t.Errorf("search: %s", l)
	}
	all := testBrowser.Tabs(TabQuery{Limit: 1})
	if len(all.Tabs) != 1 || (all.Matched > 1) != all.Truncated {
		t.Errorf("limit: %+v", all)
	}
	if err := tab.Activate(ctx); err != nil {
		t.Error(err)
	}
	if err := tab.Close(ctx); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, func(ev Event) bool { return ev.Tab.ID == tab.ID() && ev.Kind == TabClosed })
}

func TestLiveView(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/canvas.html")
	ctx := tctx(t)
	if tab.sc.running != nil {
		t.Fatal("screencast running with no viewer")
	}
	vctx, stop := context.WithCancel(ctx)
	frames, err := tab.Screencast(vctx, ScreencastOptions{Quality: 50, MaxWidth: 640, MaxHeight: 400})
	if err != nil {
		t.Fatal(err)
	}
	var f Frame
	select {
	case f = <-frames:
	case <-ctx.Done():
		t.Fatal("no frame")
	}
	if len(f.Data) < 100 || f.Data[0] != 0xFF || f.Data[1] != 0xD8 {
		t.Fatalf("frame is not a JPEG (%d bytes)", len(f.Data))
	}
	// A person takes over from a 640x400 view: the click maps to the page.
	if _, err := tab.Lease(ctx, "user"); err != nil {
		t.Fatal(err)
	}
	uctx := WithOwner(ctx, "user")
	for _, typ := range []string{"move", "down", "up"} {
		if err := tab.ForwardPointer(uctx, PointerInput{Type: typ, X: 125, Y: 68, ViewWidth: 640, ViewHeight: 400}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tab.ForwardKey(uctx, KeyInput{Type: "down", Key: "9", Code: "Digit9", Text: "9", KeyCode: 57}); err != nil {
		t.Fatal(err)
	}
	if err := tab.ForwardKey(uctx, KeyInput{Type: "up", Key: "9", Code: "Digit9", KeyCode: 57}); err != nil {
		t.Fatal(err)
	}
	if err := tab.ForwardPointer(ctx, PointerInput{Type: "down", X: 1, Y: 1, ViewWidth: 640, ViewHeight: 400}); !errors.Is(err, ErrTabLeased) {
		t.Errorf("an agent's input reached a tab the person holds: %v", err)
	}
	if cells := eval[map[string]string](t, tab, `window.cells`); cells["C5"] != "9" {
		t.Errorf("cells = %v, want C5=9", cells)
	}
	stop()
	// Nobody watches: the channel closes once the encoder is stopped.
	for range frames {
	}
	tab.sc.mu.Lock()
	running := tab.sc.running
	tab.sc.mu.Unlock()
	if running != nil {
		t.Error("screencast still running with no viewer")
	}
}

func TestRendererCrash(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/form.html")
	ctx := tctx(t)
	// A call that is pending when the renderer dies.
	pending := make(chan error, 1)
	waiting := make(chan struct{})
	tab.waiting = func() { close(waiting) }
	start := time.Now()
	go func() {
		dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, err := tab.Do(dctx, Action{Kind: ActWait, Until: &Condition{Text: "never appears"}})
		pending <- err
	}()
	// Crash it once the wait is in the page.
	<-waiting
	go chromedp.Call(tab.ctx, page.Crash, cdp.Empty{})
	select {
	case err := <-pending:
		if !errors.Is(err, ErrTabCrashed) {
			t.Errorf("pending call: %v", err)
		}
		d := time.Since(start)
		if d > 11*time.Second {
			t.Errorf("pending call took %v", d)
		}
		t.Logf("pending call failed %v after it started: %v", d, err)
	case <-time.After(11 * time.Second):
		t.Fatal("pending call outlived deadline + 1 s")
	}
	if _, err := tab.Observe(ctx, ObserveOptions{}); !errors.Is(err, ErrTabCrashed) {
		t.Errorf("later call: %v", err)
	}
	if !tab.Info().Crashed {
		t.Error("tab not marked crashed")
	}
	// The rest of the browser is fine.
	other := openTab(t, "/checkbox.html")
	if _, err := other.Observe(ctx, ObserveOptions{}); err != nil {
		t.Errorf("sibling tab: %v", err)
	}
}

func TestHungPage(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/slow.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Click(ctx, find(t, o, "button", "Hang").Ref); !errors.Is(err, ErrUnresponsive) {
		t.Logf("click on a page about to hang: %v", err)
	}
	start := time.Now()
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = tab.Observe(hctx, ObserveOptions{})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrUnresponsive) {
		t.Errorf("observe a hung page: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("hung call returned after %v", d)
	}
}

func TestCloseMidAction(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/form.html")
	ctx := tctx(t)
	pending := make(chan error, 1)
	waiting := make(chan struct{})
	tab.waiting = func() { close(waiting) }
	go func() {
		_, err := tab.Do(ctx, Action{Kind: ActWait, Until: &Condition{Text: "never appears"}})
		pending <- err
	}()
	<-waiting
	// Closed from elsewhere: not through the Tab.
	c := chromedp.FromContext(tab.s.ctx)
	if _, err := cdp.Call(ctx, c.Browser, target.CloseTarget, target.CloseTargetParams{TargetID: target.ID(tab.ID())}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-pending:
		if !errors.Is(err, ErrTabClosed) {
			t.Errorf("pending call: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("pending call did not fail")
	}
	if _, err := testBrowser.Tab(tab.ID()); !errors.Is(err, ErrTabClosed) {
		t.Errorf("closed tab still listed: %v", err)
	}
}

func TestBrowserDeathAndRelaunch(t *testing.T) {
	t.Parallel()
	ctx := tctxFor(t, 90*time.Second)
	b, err := Launch(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tab, err := b.Open(ctx, site.URL+"/form.html")
	if err != nil {
		t.Fatal(err)
	}
	pending := make(chan error, 1)
	waiting := make(chan struct{})
	tab.waiting = func() { close(waiting) }
	go func() {
		dctx, cancel := context.WithTimeout(ctx, 8*time.Second)
		defer cancel()
		_, err := tab.Do(dctx, Action{Kind: ActWait, Until: &Condition{Text: "never appears"}})
		pending <- err
	}()
	<-waiting
	proc := chromedp.FromContext(b.run.ctx).Browser.Process()
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-pending:
		if !errors.Is(err, ErrBrowserClosed) {
			t.Errorf("pending call: %v", err)
		}
	case <-time.After(9 * time.Second):
		t.Fatal("pending call outlived its deadline + 1 s")
	}
	if _, err := tab.Observe(ctx, ObserveOptions{}); !errors.Is(err, ErrBrowserClosed) {
		t.Errorf("later call: %v", err)
	}
	if _, err := b.Open(ctx, "about:blank"); !errors.Is(err, ErrBrowserClosed) {
		t.Errorf("open on a dead browser: %v", err)
	}
	if l := b.Tabs(TabQuery{}); l.Matched != 0 {
		t.Errorf("dead browser lists %d tabs", l.Matched)
	}
	if err := b.Relaunch(ctx); err != nil {
		t.Fatal(err)
	}
	tab2, err := b.Open(ctx, site.URL+"/checkbox.html")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab2.Observe(ctx, ObserveOptions{}); err != nil {
		t.Error(err)
	}
	if l := b.Tabs(TabQuery{}); l.Matched != 2 {
		t.Errorf("after relaunch: %s", l)
	}
}

// TestRemote connects to a Chromium started elsewhere over its ws:// URL,
// as a browser farm would offer it.
func TestRemote(t *testing.T) {
	t.Parallel()
	ctx := tctxFor(t, 90*time.Second)
	path, err := FindChrome()
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: Chromium's helpers can still be writing to the profile
	// for a moment after the group is killed.
	dir, err := os.MkdirTemp("", "vroom-remote-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cmd := exec.CommandContext(ctx, path, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
		"--user-data-dir="+dir, "--no-first-run", "--disable-background-networking", "--disable-component-update", "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }()
	var ws string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if i := strings.Index(sc.Text(), "ws://"); i >= 0 {
			ws = strings.TrimSpace(sc.Text()[i:])
			break
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	if ws == "" {
		t.Fatal("no DevTools URL")
	}
	b, err := Connect(ctx, ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		// Disconnecting closes the tab Connect opened, and says if it
		// could not; a second Close gives the same answer.
		if err := b.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if err := b.Close(); err != nil {
			t.Errorf("second close: %v", err)
		}
	}()
	if l := b.Tabs(TabQuery{}); l.Matched < 1 {
		t.Errorf("remote tabs: %s", l)
	}
	tab, err := b.Open(ctx, site.URL+"/checkbox.html")
	if err != nil {
		t.Fatal(err)
	}
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Click(ctx, find(t, o, "checkbox", "news").Ref); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `document.getElementById('state').textContent`); got != "on" {
		t.Errorf("state = %q", got)
	}
	if _, err := Connect(ctx, "http://example.invalid", Options{}); !errors.Is(err, ErrBadArgument) {
		t.Errorf("non-ws URL: %v", err)
	}
}
