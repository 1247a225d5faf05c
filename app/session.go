package app

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"vroom/app/config"
	"vroom/browser"
)

// session is what the desktop holds while the window is open: the browser,
// the live view server and the active run. The cards waiting for the
// person are the App's (see cards). Nothing slow runs under mu: it guards
// only the fields below it.
type session struct {
	ctx    context.Context // ends at shutdown
	cancel context.CancelFunc
	ready  chan struct{} // closed once the browser launch ended, either way
	live   *liveServer   // nil when the frame server could not start; set before the session is shared

	mu       sync.Mutex
	b        *browser.Browser
	ownB     bool // the session launched b and closes it
	bErr     error
	active   string // the tab shown large when no run is active
	run      *activeRun
	starting bool // a run is being built: another must not start meanwhile
	closing  bool // stopSession began: no run may start

	// nav is the person's browsing: closed tabs, zoom, views
	// (navigation.go); it has its own lock.
	nav personNav

	// remote is the pool of remote browsers runs open tabs in, when
	// Settings list endpoints (remotebrowsers.go); it has its own lock.
	remote remotePool
	// people are the tabs served to the person's view (personview.go);
	// it has its own lock.
	people personViews
}

// startSession launches the browser in the background, so the window
// appears at once, and starts the live view server. It starts one session
// however many callers race to it (OnDomReady, and a binding the UI called
// first), and none once the window is closing; it returns the session, or
// nil when closing.
func (a *App) startSession() *session {
	if s := a.session(); s != nil {
		return s
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &session{ctx: ctx, cancel: cancel, ready: make(chan struct{})}
	// An agent's tab may be in a remote browser: findTab looks there too.
	live, err := newLiveServer(a.findTab)
	if err != nil {
		a.log.Error("live view server", "err", err)
	}
	s.live = live
	a.mu.Lock()
	winner, stopped := a.sess, a.stopped
	if winner == nil && !stopped {
		a.sess = s
	}
	a.mu.Unlock()
	if winner != nil || stopped {
		// Another caller started it first, or the window is closing.
		cancel()
		if live != nil {
			live.Close()
		}
		return winner
	}
	go a.launchBrowser(s)
	return s
}

// launchBrowser opens the session's browser, reports it to the UI and
// follows its tabs until the session ends.
func (a *App) launchBrowser(s *session) {
	b, own, err := a.openBrowser(s.ctx)
	s.mu.Lock()
	s.b, s.ownB, s.bErr = b, own, err
	s.mu.Unlock()
	if err != nil {
		a.log.Error("browser", "err", err)
		emit(a, EventBrowser, BrowserState{Error: err.Error()})
		close(s.ready)
		return
	}
	a.log.Info("browser ready")
	a.pickActive("")
	emit(a, EventBrowser, BrowserState{Ready: true})
	a.emitTabs()
	close(s.ready)
	if own {
		go a.relaunchOnLoss(s.ctx, b)
	}
	go a.followAsks(s.ctx, b)
	a.followTabs(s.ctx, b)
}

// openBrowser returns the browser to use: the one given in Options, or a
// headless Chromium on the persistent profile. The person sees its tabs
// through the live view, never a window of its own.
func (a *App) openBrowser(ctx context.Context) (*browser.Browser, bool, error) {
	if a.opts.Browser != nil {
		return a.opts.Browser, false, nil
	}
	dir, err := a.dataDir()
	if err != nil {
		return nil, false, err
	}
	b, err := browser.Launch(ctx, a.personBrowser(browser.Options{ProfileDir: filepath.Join(dir, "profile")}))
	if err != nil {
		return nil, false, fmt.Errorf("start the browser: %w", err)
	}
	return b, true, nil
}

func (a *App) dataDir() (string, error) {
	if a.opts.DataDir != "" {
		return a.opts.DataDir, nil
	}
	return config.DataDir()
}

// stopSession kills the run, releases every waiting card and closes the
// browser. It returns within grace even if something hangs.
func (a *App) stopSession(grace time.Duration) {
	a.mu.Lock()
	a.stopped = true
	s := a.sess
	a.mu.Unlock()
	if s == nil {
		return
	}
	s.mu.Lock()
	s.closing = true
	r := s.run
	s.mu.Unlock()
	if r != nil {
		r.run.Kill("Vroom is closing")
	}
	s.cancel()
	timeout := time.NewTimer(grace)
	defer timeout.Stop()
	if r != nil {
		select {
		case <-r.done:
		case <-timeout.C:
		}
	}
	if s.live != nil {
		s.live.Close()
	}
	select {
	case <-s.ready:
	case <-timeout.C:
	}
	s.mu.Lock()
	b, own := s.b, s.ownB
	s.mu.Unlock()
	if b != nil && own {
		if err := b.Close(); err != nil {
			a.log.Warn("closing the browser", "err", err)
		}
	}
}

func (a *App) session() *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sess
}

// browserNow returns the browser, or why it cannot be used yet.
func (a *App) browserNow() (*browser.Browser, error) {
	s := a.session()
	if s == nil {
		return nil, ErrBrowserNotReady
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bErr != nil {
		return nil, fmt.Errorf("%w: %w", ErrBrowserNotReady, s.bErr)
	}
	if s.b == nil {
		return nil, ErrBrowserNotReady
	}
	return s.b, nil
}

// waitBrowser blocks until the browser has started or failed to, or ctx
// ends.
func (a *App) waitBrowser(ctx context.Context) (*browser.Browser, error) {
	// A binding the UI calls before the window reported its page loaded
	// starts the session itself: waiting for a start nobody has begun
	// would refuse what the person typed.
	s := a.startSession()
	if s == nil {
		return nil, ErrBrowserNotReady
	}
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return a.browserNow()
}

// BrowserState reports whether the browser is ready.
func (a *App) BrowserState() BrowserState {
	_, err := a.browserNow()
	if err == nil {
		return BrowserState{Ready: true}
	}
	if s := a.session(); s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.bErr != nil {
			return BrowserState{Error: s.bErr.Error()}
		}
	}
	return BrowserState{}
}

// relaunchOnLoss starts the session's browser again whenever it dies,
// until ctx ends: the desktop goes on with a fresh browser (the run, if
// any, hears of the loss through watchBrowser). The UI sees the browser
// go (an error state) and come back (ready, with the new tab list).
func (a *App) relaunchOnLoss(ctx context.Context, b *browser.Browser) {
	events := b.Subscribe(ctx)
	for ev := range events {
		if ev.Kind != browser.BrowserClosed || ctx.Err() != nil {
			continue
		}
		a.log.Warn("the browser closed; relaunching", "err", ev.Err)
		emit(a, EventBrowser, BrowserState{Error: "the browser closed (" + ev.Err + "); restarting it"})
		if err := b.Relaunch(ctx); err != nil {
			a.log.Error("relaunch the browser", "err", err)
			emit(a, EventBrowser, BrowserState{Error: fmt.Sprintf("the browser closed and could not be restarted: %v", err)})
			continue
		}
		a.pickActive("")
		emit(a, EventBrowser, BrowserState{Ready: true})
		a.emitTabs()
	}
}
