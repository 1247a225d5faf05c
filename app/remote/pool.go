package remote

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"vroom/browser"
)

// ErrNoEndpoint is what Pool.Open and Connect wrap when no remote
// browser can be had: every endpoint failed to connect or died, and none
// is due for a retry yet.
var ErrNoEndpoint = errors.New("no remote browser is reachable")

// Options configure a pool of remote browsers. Zero fields take
// the defaults noted.
type Options struct {
	// Browser configures every connection (viewport, timeouts, Logf).
	Browser browser.Options
	// Now is the clock the retries are timed by (time.Now).
	Now func() time.Time
	// Backoff is how long an endpoint that failed n times in a row is
	// left alone before it is tried again (defaultBackoff).
	Backoff func(n int) time.Duration
	// Connect connects to one endpoint; ctx is the connection's lifetime
	// (browser.ConnectEndpoint).
	Connect func(ctx context.Context, raw string, opts browser.Options) (*browser.Browser, error)
}

// ConnectFunc is how an endpoint is dialled: Connect, else
// browser.ConnectEndpoint. vroom doctor checks endpoints through it, so a
// check passes exactly when the pool could connect.
func (o Options) ConnectFunc() func(ctx context.Context, raw string, opts browser.Options) (*browser.Browser, error) {
	if o.Connect != nil {
		return o.Connect
	}
	return browser.ConnectEndpoint
}

// defaultBackoff is 2 s after the first failure, doubling to at most a
// minute: a browser farm restarting a node is back within seconds, one
// that is down for good costs a failed dial a minute.
func defaultBackoff(n int) time.Duration {
	d := 2 * time.Second
	for i := 1; i < n && d < time.Minute; i++ {
		d *= 2
	}
	return min(d, time.Minute)
}

// Pool is a pool of remote browsers (CDP endpoints) that runs open
// their agents' tabs in. Each tab goes to the least-loaded endpoint that
// is up — the one holding the fewest tabs opened through the pool and
// still open — so agents spread over a browser farm. An endpoint whose
// connection fails or drops is marked down and skipped, then tried again
// after a backoff. Connections are made when first needed and live until
// Close or the pool's context ends. It is safe for concurrent use.
type Pool struct {
	ctx  context.Context
	opts Options

	mu       sync.Mutex
	eps      []*endpoint
	watchers map[*func(Loss)]struct{}
	closed   bool
}

// endpoint is one remote browser of the pool; the pool's lock guards it.
type endpoint struct {
	raw  string // as configured: it may hold a token
	name string // browser.EndpointName(raw): fit to show and log

	b       *browser.Browser // nil until connected, and once down
	dialing chan struct{}    // non-nil while a connect is under way
	retryAt time.Time        // while down: when it may be tried again
	fails   int              // failures in a row
	err     error            // why it is down

	held    map[string]*browser.Tab // tabs opened through the pool, by id
	pending int                     // opens under way (they count as load)
	opened  int                     // tabs ever opened here
}

// Loss tells a pool's watchers that a connected endpoint died:
// every tab it held is gone.
type Loss struct {
	// Endpoint names it (credentials hidden).
	Endpoint string
	Err      error
	// Usable is how many endpoints remain up or due for a try.
	Usable int
}

// Status is one endpoint as the pool sees it now.
type Status struct {
	Name      string
	Connected bool
	// Tabs are the tabs it holds for runs; Opened all it ever opened.
	Tabs, Opened int
	// Down says why it is down ("" when it is not); RetryAt is when it
	// will be tried again.
	Down    string
	RetryAt time.Time
}

// New checks every address (browser.CheckEndpoint) and returns a
// pool over them whose connections end when ctx does. Nothing is dialled
// yet. An address that is no endpoint is an error naming its position.
func New(ctx context.Context, urls []string, opts Options) (*Pool, error) {
	if len(urls) == 0 {
		return nil, fmt.Errorf("remote browsers: %w: none given", browser.ErrBadEndpoint)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Backoff == nil {
		opts.Backoff = defaultBackoff
	}
	opts.Connect = opts.ConnectFunc()
	p := &Pool{ctx: ctx, opts: opts, watchers: map[*func(Loss)]struct{}{}}
	for i, u := range urls {
		if err := browser.CheckEndpoint(u); err != nil {
			return nil, fmt.Errorf("remote browser %d: %w", i+1, err)
		}
		p.eps = append(p.eps, &endpoint{raw: u, name: browser.EndpointName(u), held: map[string]*browser.Tab{}})
	}
	context.AfterFunc(ctx, func() { p.Close() })
	return p, nil
}

// Open opens a tab at url in the least-loaded endpoint that is up,
// connecting to it first if need be. An endpoint that cannot be reached
// or that dies on the way is marked down and the next one is tried. As
// browser.Browser.Open, a tab that opened but did not load is returned
// with the error.
func (p *Pool) Open(ctx context.Context, url string) (*browser.Tab, error) {
	tried := map[*endpoint]bool{}
	var errs []error
	for {
		ep := p.pick(tried)
		if ep == nil {
			return nil, fmt.Errorf("open a remote tab: %w", errors.Join(append([]error{ErrNoEndpoint}, errs...)...))
		}
		tried[ep] = true
		t, err := p.openIn(ctx, ep, url)
		if t != nil || (err != nil && !errors.Is(err, browser.ErrBrowserClosed)) {
			return t, err
		}
		errs = append(errs, fmt.Errorf("%s: %w", ep.name, err))
	}
}

// openIn opens the tab in ep, which pick reserved; nil and an error
// wrapping browser.ErrBrowserClosed when ep is down.
func (p *Pool) openIn(ctx context.Context, ep *endpoint, url string) (*browser.Tab, error) {
	defer func() {
		p.mu.Lock()
		ep.pending--
		p.mu.Unlock()
	}()
	b, err := p.connect(ctx, ep)
	if err != nil {
		return nil, err
	}
	t, err := b.Open(ctx, url)
	if t != nil {
		p.mu.Lock()
		if ep.b == b {
			ep.held[t.ID()] = t
			ep.opened++
		}
		p.mu.Unlock()
		return t, err
	}
	if errors.Is(err, browser.ErrBrowserClosed) {
		p.down(ep, b, err)
	}
	return nil, err
}

// pick reserves the least-loaded endpoint that is up or due for a try,
// leaving out those tried; nil when there is none. Ties go to the first
// configured, so a run's tabs spread in the order the person listed.
func (p *Pool) pick(tried map[*endpoint]bool) *endpoint {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	now := p.opts.Now()
	var best *endpoint
	bestLoad := 0
	for _, ep := range p.eps {
		if tried[ep] || !ep.usable(now) {
			continue
		}
		if l := ep.load(); best == nil || l < bestLoad {
			best, bestLoad = ep, l
		}
	}
	if best != nil {
		best.pending++
	}
	return best
}

// usable reports whether ep is connected, or may be dialled now.
func (ep *endpoint) usable(now time.Time) bool {
	return ep.b != nil || ep.dialing != nil || !now.Before(ep.retryAt)
}

// load counts the tabs ep holds for runs that are still open, and the
// opens under way. Closed tabs are forgotten here.
func (ep *endpoint) load() int {
	for id := range ep.held {
		if ep.b == nil {
			break
		}
		if _, err := ep.b.Tab(id); err != nil {
			delete(ep.held, id)
		}
	}
	return len(ep.held) + ep.pending
}

// connect returns ep's browser, dialling it when it has none; a connect
// under way is waited for rather than doubled. A failure marks ep down.
func (p *Pool) connect(ctx context.Context, ep *endpoint) (*browser.Browser, error) {
	for {
		p.mu.Lock()
		switch {
		case p.closed:
			p.mu.Unlock()
			return nil, fmt.Errorf("%s: %w: the pool is closed", ep.name, browser.ErrBrowserClosed)
		case ep.b != nil:
			b := ep.b
			p.mu.Unlock()
			return b, nil
		case ep.dialing != nil:
			wait := ep.dialing
			p.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if err := p.downErr(ep); err != nil {
				return nil, err
			}
			continue
		}
		ep.dialing = make(chan struct{})
		p.mu.Unlock()
		return p.dial(ep)
	}
}

// downErr is why ep is down, as an error wrapping browser.ErrBrowserClosed;
// nil when it is up.
func (p *Pool) downErr(ep *endpoint) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ep.b != nil || ep.err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", browser.ErrBrowserClosed, ep.err)
}

// dial connects to ep, whose dialing channel the caller set.
func (p *Pool) dial(ep *endpoint) (*browser.Browser, error) {
	b, err := p.opts.Connect(p.ctx, ep.raw, p.opts.Browser)
	p.mu.Lock()
	close(ep.dialing)
	ep.dialing = nil
	if err == nil && p.closed {
		err = fmt.Errorf("%w: the pool is closed", browser.ErrBrowserClosed)
		defer b.Close()
	}
	if err != nil {
		ep.markDown(err, p.opts.Now(), p.opts.Backoff)
		p.mu.Unlock()
		return nil, fmt.Errorf("%w: %w", browser.ErrBrowserClosed, err)
	}
	ep.b, ep.fails, ep.err, ep.held = b, 0, nil, map[string]*browser.Tab{}
	p.mu.Unlock()
	events := b.Subscribe(p.ctx)
	go p.watch(ep, b, events)
	return b, nil
}

// markDown records a failure of ep: it is skipped until the backoff ends.
func (ep *endpoint) markDown(err error, now time.Time, backoff func(int) time.Duration) {
	ep.b = nil
	ep.fails++
	ep.err = err
	ep.retryAt = now.Add(backoff(ep.fails))
	ep.held = map[string]*browser.Tab{}
}

// watch marks ep down when b dies: its BrowserClosed event, or the end of
// its events while the pool is open.
func (p *Pool) watch(ep *endpoint, b *browser.Browser, events <-chan browser.Event) {
	for ev := range events {
		if ev.Kind == browser.BrowserClosed {
			p.down(ep, b, errors.New(ev.Err))
			return
		}
	}
	if p.ctx.Err() == nil && !b.Alive() {
		p.down(ep, b, browser.ErrBrowserClosed)
	}
}

// down marks ep down because its browser b died (a later connection is
// left alone), closes what is left of b, and tells the watchers.
func (p *Pool) down(ep *endpoint, b *browser.Browser, err error) {
	p.mu.Lock()
	if ep.b != b || p.closed {
		p.mu.Unlock()
		return
	}
	ep.markDown(err, p.opts.Now(), p.opts.Backoff)
	loss := Loss{Endpoint: ep.name, Err: err, Usable: p.usableLocked()}
	watchers := make([]func(Loss), 0, len(p.watchers))
	for f := range p.watchers {
		watchers = append(watchers, *f)
	}
	p.mu.Unlock()
	p.logf("remote browser %s is down: %v", ep.name, err)
	// The connection is gone; closing releases its contexts and says
	// nothing its death did not.
	_ = b.Close()
	for _, f := range watchers {
		f(loss)
	}
}

// usableLocked counts the endpoints up or due for a try; p.mu is held.
func (p *Pool) usableLocked() int {
	now, n := p.opts.Now(), 0
	for _, ep := range p.eps {
		if ep.usable(now) {
			n++
		}
	}
	return n
}

// Watch calls f, until ctx ends, each time a connected endpoint dies. f
// runs in the goroutine that saw the death and must not block.
func (p *Pool) Watch(ctx context.Context, f func(Loss)) {
	key := &f
	p.mu.Lock()
	p.watchers[key] = struct{}{}
	p.mu.Unlock()
	context.AfterFunc(ctx, func() {
		p.mu.Lock()
		delete(p.watchers, key)
		p.mu.Unlock()
	})
}

// logf is the connections' Logf, when set.
func (p *Pool) logf(format string, args ...any) {
	if p.opts.Browser.Logf != nil {
		p.opts.Browser.Logf(format, args...)
	}
}
