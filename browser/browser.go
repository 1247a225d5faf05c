package browser

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Browser is one Chromium, launched or connected. Its tabs are listed,
// opened, leased and closed through it. It is safe for concurrent use.
type Browser struct {
	opts   Options
	parent context.Context

	// dl has a lock of its own; capture is held for one screenshot, so
	// no other tab comes to the front during it (Tab.capture).
	dl      downloads
	capture sync.Mutex

	// creating is held for reading while Open creates and registers a
	// target, so a target nobody asked for is told from Open's own
	// (background.go).
	creating sync.RWMutex
	// spare is the blank window created ahead of the next Open (spare.go).
	spare spareWindow

	mu     sync.Mutex
	run    *session
	tabs   map[string]*Tab
	order  []string
	subs   map[*subscriber]struct{}
	closed bool
	// starting is closed once the first start has ended, startErr is
	// what it met (written before starting closes); stopStart cancels a
	// start still under way (Start), so Close need not wait for it.
	starting  chan struct{}
	startErr  error
	stopStart context.CancelFunc
	// closeErr is what the first Close met; closeDone is closed once it
	// is set, so a Close racing the first returns the same answer.
	closeErr  error
	closeDone chan struct{}
}

// session is one life of the browser process; Relaunch replaces it.
type session struct {
	allocCancel context.CancelFunc
	ctx         context.Context // the chromedp browser context
	cancel      context.CancelFunc
	rootID      string
	dead        chan struct{}
	deadErr     error
	// lostConn is chromedp's LostConnection: closed before the calls in
	// flight fail, and before the watcher that calls lost runs.
	lostConn <-chan struct{}
	// closing asks a launched browser to close only once: chromedp's
	// graceful close may not be asked twice.
	closing sync.Once
}

// Launch starts (or, with RemoteURL, connects to) a browser. Cancelling ctx
// closes the browser, so the context tree mirrors app → browser → tab.
func Launch(ctx context.Context, opts Options) (*Browser, error) {
	b := newBrowser(ctx, opts)
	b.startErr = b.start(ctx)
	close(b.starting)
	if b.startErr != nil {
		return nil, b.startErr
	}
	b.closeWith(ctx)
	return b, nil
}

// Start is Launch in the background: it returns at once, so a caller can
// do its own preparation (a key lookup, the model's first call) while
// Chromium starts. Open waits for the start. A start that fails ends the
// browser: subscribers get a BrowserClosed event with the error, Open and
// StartErr return it.
func Start(ctx context.Context, opts Options) *Browser {
	b := newBrowser(ctx, opts)
	sctx, cancel := context.WithCancel(ctx)
	b.stopStart = cancel
	b.closeWith(ctx)
	go func() {
		defer cancel()
		err := b.start(sctx)
		b.startErr = err
		close(b.starting)
		if err != nil && sctx.Err() == nil { // not the Close that cancelled it
			b.emit(Event{Kind: BrowserClosed, Err: err.Error()})
		}
	}()
	return b
}

func newBrowser(ctx context.Context, opts Options) *Browser {
	opts.defaults()
	return &Browser{opts: opts, parent: ctx, tabs: map[string]*Tab{}, subs: map[*subscriber]struct{}{},
		starting: make(chan struct{}), stopStart: func() {}, closeDone: make(chan struct{})}
}

// closeWith closes the browser when ctx ends, so the context tree mirrors
// app → browser → tab.
func (b *Browser) closeWith(ctx context.Context) {
	context.AfterFunc(ctx, func() {
		// Nobody waits for this Close; a later Close returns the same error.
		if err := b.Close(); err != nil {
			b.opts.Logf("%v", err)
		}
	})
}

// StartErr returns what a failed start met, and nil while the start is
// under way or once it succeeded.
func (b *Browser) StartErr() error {
	select {
	case <-b.starting:
		return b.startErr
	default:
		return nil
	}
}

// started waits for the start to end and returns what it met.
func (b *Browser) started(ctx context.Context) error {
	select {
	case <-b.starting:
	case <-ctx.Done():
		return ctx.Err()
	}
	if b.startErr != nil && !errors.Is(b.startErr, ErrBrowserClosed) {
		return fmt.Errorf("%w: %w", ErrBrowserClosed, b.startErr)
	}
	return b.startErr
}

// Connect attaches to a remote browser at a ws:// CDP endpoint.
func Connect(ctx context.Context, wsURL string, opts Options) (*Browser, error) {
	if !strings.HasPrefix(wsURL, "ws://") && !strings.HasPrefix(wsURL, "wss://") {
		return nil, fmt.Errorf("connect %q: %w: want a ws:// URL", wsURL, ErrBadArgument)
	}
	opts.RemoteURL = wsURL
	return Launch(ctx, opts)
}

func (b *Browser) start(ctx context.Context) error {
	allocCtx, allocCancel, err := b.allocator(b.parent)
	if err != nil {
		return fmt.Errorf("launch: %w", err)
	}
	bctx, bcancel := chromedp.NewContext(allocCtx, chromedp.WithLogf(b.opts.Logf), chromedp.WithErrorf(b.opts.Logf))
	startCtx, cancelStart := ctx, context.CancelFunc(func() {})
	if _, ok := ctx.Deadline(); !ok {
		startCtx, cancelStart = context.WithTimeout(ctx, 60*time.Second)
	}
	defer cancelStart()
	// The first Do starts the process and opens its first tab; the tab is
	// adopted like any other.
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(bctx) }()
	select {
	case err = <-done:
	case <-startCtx.Done():
		err = startCtx.Err()
	}
	if err != nil {
		bcancel()
		allocCancel()
		if errors.Is(err, chromedp.ErrNoDisplay) {
			return fmt.Errorf("launch headed browser: %w", err)
		}
		return fmt.Errorf("launch: %w: %w", ErrBrowserClosed, err)
	}
	c := chromedp.FromContext(bctx)
	s := &session{allocCancel: allocCancel, ctx: bctx, cancel: bcancel, rootID: string(c.Target.TargetID), dead: make(chan struct{}),
		lostConn: c.Browser.LostConnection}
	b.mu.Lock()
	b.run = s
	b.mu.Unlock()

	if err := chromedp.ListenBrowser(bctx, func(ev any) { b.onBrowserEvent(s, ev) }); err != nil {
		return fmt.Errorf("launch: %w", err)
	}
	if _, err := cdp.Call(startCtx, c.Browser, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true}); err != nil {
		return fmt.Errorf("launch: discover targets: %w", err)
	}
	if err := b.holdWindows(startCtx, s); err != nil {
		// A browser without a Fetch domain of its own still works: the
		// windows its guarded tabs open then have their first navigation
		// unchecked (their tabs hold the rest).
		b.opts.Logf("launch: hold new windows: %v", err)
	}
	if err := b.enableDownloads(startCtx, s); err != nil {
		return fmt.Errorf("launch: %w", err)
	}
	go func() {
		select {
		case <-c.Browser.LostConnection:
			b.lost(s, fmt.Errorf("%w: connection lost", ErrBrowserClosed))
		case <-bctx.Done():
			b.lost(s, fmt.Errorf("%w", ErrBrowserClosed))
		}
	}()
	if _, err := b.adopt(startCtx, s, s.rootID, ""); err != nil {
		return err
	}
	b.adoptExisting(startCtx, s)
	b.makeSpare(s)
	return nil
}

// adoptExisting adopts the tabs a remote browser or a restored profile
// holds already. The browser works without them, so a failure is logged:
// such a tab is missing from the list, and the launch goes on.
func (b *Browser) adoptExisting(ctx context.Context, s *session) {
	res, err := cdp.Call(ctx, chromedp.FromContext(s.ctx).Browser, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		b.opts.Logf("launch: list existing tabs: %v", err)
		return
	}
	for _, info := range res.TargetInfos {
		if info.Type == "page" && string(info.TargetID) != s.rootID {
			if _, err := b.adopt(ctx, s, string(info.TargetID), string(info.OpenerID)); err != nil {
				b.opts.Logf("launch: %v", err)
			}
		}
	}
}

// lost fails every tab of the session once the browser is gone.
func (b *Browser) lost(s *session, err error) {
	b.mu.Lock()
	select {
	case <-s.dead:
		b.mu.Unlock()
		return
	default:
	}
	s.deadErr = err
	close(s.dead)
	var gone []*Tab
	if b.run == s {
		for _, id := range b.order {
			gone = append(gone, b.tabs[id])
		}
		for id, t := range b.tabs {
			if !slices.Contains(b.order, id) { // the window created ahead
				gone = append(gone, t)
			}
		}
		b.tabs = map[string]*Tab{}
		b.order = nil
	}
	closing := b.closed
	b.mu.Unlock()
	for _, t := range gone {
		t.kill(err)
	}
	if !closing {
		b.emit(Event{Kind: BrowserClosed, Err: err.Error()})
	}
}

// Alive reports whether the browser process is still connected.
func (b *Browser) Alive() bool {
	b.mu.Lock()
	s, closed := b.run, b.closed
	b.mu.Unlock()
	return s != nil && !closed && !b.gone(s)
}

// gone reports whether s has died. A dropped connection counts at once, so
// a call that failed because of it maps to ErrBrowserClosed even before the
// watcher goroutine has run lost.
func (b *Browser) gone(s *session) bool {
	select {
	case <-s.dead:
		return true
	case <-s.lostConn:
		b.lost(s, fmt.Errorf("%w: connection lost", ErrBrowserClosed))
		return true
	default:
		return false
	}
}

// Relaunch closes whatever is left of the browser and starts a new one with
// the same options. Tabs of the old browser are gone (their calls return
// ErrBrowserClosed); the tab list afterwards holds only the new browser's.
func (b *Browser) Relaunch(ctx context.Context) error {
	<-b.starting // a start under way ends first (bounded by its timeout)
	b.mu.Lock()
	old := b.run
	if b.closed {
		b.mu.Unlock()
		return fmt.Errorf("relaunch: %w", ErrBrowserClosed)
	}
	b.mu.Unlock()
	if old != nil {
		b.lost(old, fmt.Errorf("%w: relaunched", ErrBrowserClosed))
		// The old browser is gone whatever its contexts met on the way out.
		if err := old.stop(b.opts.RemoteURL != ""); err != nil {
			b.opts.Logf("relaunch: stop the old browser: %v", err)
		}
	}
	if err := b.start(ctx); err != nil {
		return fmt.Errorf("relaunch: %w", err)
	}
	return nil
}

// Close closes the browser (or disconnects from a remote one) and every
// tab. It returns what disconnecting met (a remote browser's first tab
// that would not close, say); a launched Chromium is killed, which cannot
// fail. Every call returns the first one's answer.
func (b *Browser) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		<-b.closeDone
		return b.closeErr
	}
	b.closed = true
	b.mu.Unlock()
	// A start under way (Start) is cancelled, which kills what it began.
	b.stopStart()
	<-b.starting
	b.mu.Lock()
	s := b.run
	subs := b.subs
	b.subs = map[*subscriber]struct{}{}
	b.mu.Unlock()
	var err error
	if s != nil {
		alive := !b.gone(s)
		b.lost(s, fmt.Errorf("%w: closed", ErrBrowserClosed))
		// Disconnecting from a browser that had died fails, and says
		// nothing its death did not.
		if serr := s.stop(b.opts.RemoteURL != ""); serr != nil && alive {
			err = fmt.Errorf("close browser: %w", serr)
		}
	}
	b.removeStaging()
	for sub := range subs {
		sub.close()
	}
	b.closeErr = err
	close(b.closeDone)
	return err
}

// stop ends the session's contexts. A launched Chromium is asked to close
// (so a persistent profile is written whole and it removes what it made),
// and killed if it has not within closeGrace; a remote one is
// disconnected from, closing the tab the session opened, and what that
// met is returned.
func (s *session) stop(remote bool) error {
	var err error
	if remote {
		err = chromedp.Cancel(s.ctx)
	} else {
		s.closing.Do(func() { closeLaunched(s.ctx) })
	}
	s.cancel()
	s.allocCancel()
	return err
}

func (b *Browser) session(ctx context.Context) (*session, error) {
	if err := b.started(ctx); err != nil {
		return nil, err
	}
	b.mu.Lock()
	s, closed := b.run, b.closed
	b.mu.Unlock()
	if closed || s == nil {
		return nil, ErrBrowserClosed
	}
	if b.gone(s) {
		b.mu.Lock()
		defer b.mu.Unlock()
		return nil, s.deadErr
	}
	return s, nil
}

func (b *Browser) onBrowserEvent(s *session, ev any) {
	// This runs in chromedp's read loop: no commands here, only state and
	// goroutines.
	switch ev := ev.(type) {
	case *target.EventTargetCreated:
		info := ev.TargetInfo
		if info == nil || info.Type != "page" {
			return
		}
		id := string(info.TargetID)
		b.mu.Lock()
		_, known := b.tabs[id]
		b.mu.Unlock()
		if known || id == s.rootID {
			return
		}
		if info.OpenerID != "" {
			// A popup: adopt it even though nobody asked for it.
			b.noteOpener(id, string(info.OpenerID))
			b.adoptPopup(s, id, string(info.OpenerID))
		} else {
			go b.adoptBackground(s, id, info.URL)
		}
	case *target.EventTargetInfoChanged:
		info := ev.TargetInfo
		if info == nil {
			return
		}
		b.mu.Lock()
		t := b.tabs[string(info.TargetID)]
		b.mu.Unlock()
		if t == nil && info.Type == "page" && info.OpenerID == "" && string(info.TargetID) != s.rootID {
			go b.adoptBackground(s, string(info.TargetID), info.URL)
		}
		if t != nil {
			t.update(func(ti *TabInfo) bool {
				ch := ti.Title != info.Title || ti.URL != info.URL
				ti.Title, ti.URL = info.Title, info.URL
				return ch
			})
		}
	case *target.EventTargetDestroyed:
		b.drop(string(ev.TargetID), fmt.Errorf("%w: closed from elsewhere", ErrTabClosed))
	case *target.EventTargetCrashed:
		b.mu.Lock()
		t := b.tabs[string(ev.TargetID)]
		b.mu.Unlock()
		if t != nil {
			t.crashed(fmt.Errorf("%w: %s", ErrTabCrashed, ev.Status))
		}
	default:
		b.onDownload(s, ev)
	}
}

// drop removes a tab from the list and fails its pending calls.
func (b *Browser) drop(id string, err error) {
	b.mu.Lock()
	t := b.tabs[id]
	listed := slices.Contains(b.order, id)
	if t != nil {
		delete(b.tabs, id)
		b.order = slices.DeleteFunc(b.order, func(s string) bool { return s == id })
	}
	b.mu.Unlock()
	if t != nil {
		t.kill(err)
		// The window created ahead was never listed: nobody knew it.
		if listed {
			info := t.Info()
			b.emit(Event{Kind: TabClosed, Tab: info, Opener: info.Opener})
		}
	}
}

// Open opens a new tab at url ("" or about:blank for an empty one), the
// one tab of a window of its own, and returns once its page has loaded. A
// tab behind another in a window draws no frames while the front one is
// still, and a page that opens a tab puts it in front of its own window,
// so no tab of Vroom's shares one (spare.go). The window is the one a
// launched headless browser created ahead, when ready, which Open attaches
// before the page loads: the URL in Target.createTarget would save ~10 ms
// more, but the page then lays out and creates its cross-site iframes
// before the tab is attached and emulated, and such an iframe was not
// driven (TestIframes). BenchmarkOpenTab and the package doc's "Opening a
// tab" measure each route.
func (b *Browser) Open(ctx context.Context, url string) (*Tab, error) {
	return b.open(ctx, url, openRoute{window: true, spare: true})
}

// openRoute is how a tab is asked of Chromium; the benchmark compares them.
type openRoute struct {
	window      bool // a new window rather than a tab in the existing one
	spare       bool // the window created ahead, when there is one
	urlInCreate bool // the URL goes with Target.createTarget, not a later Page.navigate
	fullAct     bool // the later navigation is a checked action (Tab.Navigate)
}

func (b *Browser) open(ctx context.Context, url string, r openRoute) (*Tab, error) {
	if url == "" {
		url = "about:blank"
	}
	if err := b.checkURL(url); err != nil {
		return nil, fmt.Errorf("open %s: %w", url, err)
	}
	s, err := b.session(ctx)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	cctx, cancel := context.WithTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	var t *Tab
	if r.spare && !r.urlInCreate {
		t = b.openSpare(cctx, s)
		// The next window is created once this tab has loaded: created
		// meanwhile, it held up the browser's answers to this one's
		// attach (two to three times as long).
		defer b.makeSpare(s)
	}
	if t == nil {
		p := target.CreateTargetParams{URL: "about:blank"}
		if r.urlInCreate {
			p.URL = url
		}
		if r.window {
			p.NewWindow = new(true)
		}
		if t, err = b.createTab(cctx, s, p); err != nil {
			return nil, fmt.Errorf("open: %w", err)
		}
	}
	switch {
	case url == "about:blank":
	case r.urlInCreate:
		err = t.awaitLoad(ctx)
	case r.fullAct:
		_, err = t.Navigate(ctx, url)
	default:
		err = t.Load(ctx, url)
	}
	if err != nil {
		return t, fmt.Errorf("open %s: %w", url, err)
	}
	if url != "about:blank" && !r.urlInCreate {
		if err := t.forgetBlank(ctx); err != nil {
			return t, fmt.Errorf("open %s: %w", url, err)
		}
	}
	return t, nil
}

// Tab returns the tab with the id.
func (b *Browser) Tab(id string) (*Tab, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := b.tabs[id]; t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("tab %s: %w", id, ErrTabClosed)
}

func (b *Browser) mapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrBrowserClosed) || errors.Is(err, ErrTabClosed) || errors.Is(err, ErrTabCrashed) {
		return err
	}
	if !b.Alive() {
		return fmt.Errorf("%w: %w", ErrBrowserClosed, err)
	}
	return inWords(err)
}

// checkURL refuses schemes that run code or read the disk unless allowed.
func (b *Browser) checkURL(u string) error {
	i := strings.IndexByte(u, ':')
	if i <= 0 {
		return fmt.Errorf("%w: %q has no scheme", ErrURLNotAllowed, u)
	}
	scheme := strings.ToLower(strings.TrimSpace(u[:i]))
	switch scheme {
	case "http", "https", "about", "data":
		return nil
	case "javascript":
		return fmt.Errorf("%w: javascript: URLs are never navigated", ErrURLNotAllowed)
	}
	if slices.Contains(b.opts.AllowSchemes, scheme) {
		return nil
	}
	return fmt.Errorf("%w: scheme %q (allow it with Options.AllowSchemes)", ErrURLNotAllowed, scheme)
}
