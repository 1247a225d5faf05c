package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"vroom/agents"
	"vroom/app/remote"
	"vroom/browser"
)

// maxReadPage bounds the text read_page asks the browser for; the runtime
// trims it further for the prompt.
const maxReadPage = 24000

// Tabs lends a browser's tabs to a run's executors: it is the
// agents.TabProvider over a *browser.Browser. Every tab it hands out is
// leased to the executor for the executor's whole life, so nobody else (the
// person, another agent) can act in it meanwhile, and the lease ends with
// Release or when the Tabs' context ends.
type Tabs struct {
	b *browser.Browser
	// remote, when set, is where new tabs open (remote browsers, spread
	// by load); b, which may then be nil, only holds tabs to attach.
	remote *remote.Pool
	// ctx bounds every lease: when the run ends, its tabs are free again
	// even if an executor never released them.
	ctx  context.Context
	opts browser.ObserveOptions

	mu     sync.Mutex
	opened []*browser.Tab // tabs opened for the run, in order
	owners map[*agentTab]*browser.Lease
	pool   []*browser.Tab // blank tabs opened ahead of need
	closed bool           // CloseOpened was called: late tabs are closed at once
	// pending counts blank tabs being opened by Prewarm; added is closed
	// (and replaced) whenever one is ready, so Open can wait for it
	// rather than open yet another at the same time.
	pending int
	added   chan struct{}
}

// NewTabs returns a provider over b whose leases end at the latest when ctx
// does. opts chooses the view executors get (the zero value is the
// browser's default frontier of 40 controls).
func NewTabs(ctx context.Context, b *browser.Browser, opts browser.ObserveOptions) *Tabs {
	return &Tabs{b: b, ctx: ctx, opts: opts, owners: map[*agentTab]*browser.Lease{}}
}

// Prewarm opens blank tabs until n are ready ahead of need, so spawning an
// executor does not wait for Chromium to open one (about half a second
// here, and the planner's spawns are sequential). It returns once they are
// open. Tabs are not replenished as they are used: opening them competes
// with the executors' own work.
func (p *Tabs) Prewarm(ctx context.Context, n int) error {
	p.mu.Lock()
	need := n - len(p.pool) - p.pending
	p.pending += max(need, 0)
	p.mu.Unlock()
	// One after another: the first is ready soonest, and the executors
	// already at work are not starved.
	var errs []error
	for i := 0; i < need; i++ {
		t, err := p.open(ctx, "")
		p.mu.Lock()
		p.pending--
		late := p.closed
		if err == nil && !late {
			p.opened = append(p.opened, t)
			p.pool = append(p.pool, t)
		}
		if p.added != nil {
			close(p.added)
			p.added = nil
		}
		p.mu.Unlock()
		if err != nil {
			errs = append(errs, fmt.Errorf("prewarm: %w", err))
			continue
		}
		if !late {
			continue
		}
		// The run ended while this tab opened: close it, even when ctx
		// is what ended.
		if err := t.Close(context.WithoutCancel(ctx)); err != nil && !errors.Is(err, browser.ErrTabClosed) && !errors.Is(err, browser.ErrBrowserClosed) {
			errs = append(errs, fmt.Errorf("prewarm: close a late tab: %w", err))
		}
	}
	return errors.Join(errs...)
}

// Open opens a tab at url leased to owner. A prewarmed blank tab is
// leased before it navigates, so no one else can act in it even while it
// loads; the load goes on after Open returns, and the tab's first use
// waits for it. Without one, browser.Open opens a tab in the existing
// window and loads the URL there before returning, the cheapest route that
// keeps cross-site frames driveable (ARCHITECTURE.md, "Opening a tab").
func (p *Tabs) Open(ctx context.Context, owner, url string) (agents.Tab, error) {
	t, err := p.fromPool(ctx)
	if err != nil {
		return nil, fmt.Errorf("open tab for %s: %w", owner, err)
	}
	if t == nil {
		if t, err = p.open(ctx, url); t != nil {
			p.mu.Lock()
			p.opened = append(p.opened, t)
			p.mu.Unlock()
		}
		if err != nil {
			return nil, fmt.Errorf("open tab for %s: %w", owner, err)
		}
		url = "" // loaded
	}
	at, err := p.lease(t, owner)
	if err != nil {
		return nil, fmt.Errorf("open tab for %s: %w", owner, err)
	}
	if url != "" && url != "about:blank" {
		at.ready = make(chan struct{})
		go func() {
			defer close(at.ready)
			if err := t.Load(browser.WithOwner(p.ctx, owner), url); err != nil {
				at.readyErr = fmt.Errorf("open %s: %w", url, err)
			}
		}()
	}
	return at, nil
}

// open opens a new tab: in the least-loaded remote browser when the run
// has remote ones, else in b.
func (p *Tabs) open(ctx context.Context, url string) (*browser.Tab, error) {
	if p.remote != nil {
		return p.remote.Open(ctx, url)
	}
	return p.b.Open(ctx, url)
}

// tab finds an existing tab by id: in b, then in the pool's browsers.
func (p *Tabs) tab(id string) (*browser.Tab, error) {
	if p.b != nil {
		t, err := p.b.Tab(id)
		if err == nil || p.remote == nil {
			return t, err
		}
	}
	if p.remote != nil {
		return p.remote.Tab(id)
	}
	return nil, fmt.Errorf("tab %s: %w", id, browser.ErrTabClosed)
}

// fromPool takes a prewarmed tab, waiting for one Prewarm is opening
// rather than opening yet another at the same time; nil when there is
// none to have. A prewarmed tab whose remote browser has died since is
// passed over.
func (p *Tabs) fromPool(ctx context.Context) (*browser.Tab, error) {
	for {
		p.mu.Lock()
		for len(p.pool) > 0 {
			t := p.pool[0]
			p.pool = p.pool[1:]
			if p.remote != nil {
				if _, err := p.remote.Tab(t.ID()); err != nil {
					continue
				}
			}
			p.mu.Unlock()
			return t, nil
		}
		if p.pending == 0 {
			p.mu.Unlock()
			return nil, nil
		}
		if p.added == nil {
			p.added = make(chan struct{})
		}
		added := p.added
		p.mu.Unlock()
		select {
		case <-added:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Attach leases the existing tab id to owner, keeping its state (cookies,
// a logged-in session, a half-filled form). A tab someone else holds gives
// an error wrapping browser.ErrTabLeased that names the holder.
func (p *Tabs) Attach(ctx context.Context, owner, id string) (agents.Tab, error) {
	t, err := p.tab(id)
	if err != nil {
		return nil, fmt.Errorf("attach tab %s: %w", id, err)
	}
	at, err := p.lease(t, owner)
	if err != nil {
		return nil, fmt.Errorf("attach tab %s: %w", id, err)
	}
	return at, nil
}

func (p *Tabs) lease(t *browser.Tab, owner string) (*agentTab, error) {
	l, err := t.Lease(p.ctx, owner)
	if err != nil {
		var le *browser.LeaseError
		if errors.As(err, &le) {
			return nil, fmt.Errorf("%w: %s is working in it; wait for it to finish or kill it first", err, le.Holder)
		}
		return nil, err
	}
	at := &agentTab{t: t, owner: owner, opts: p.opts}
	p.mu.Lock()
	p.owners[at] = l
	p.mu.Unlock()
	return at, nil
}

// Release ends owner's lease on the tab; the tab stays open, so a failed
// sub-task can be retried in it.
func (p *Tabs) Release(t agents.Tab, owner string) {
	at, ok := t.(*agentTab)
	if !ok || at.owner != owner {
		return
	}
	p.mu.Lock()
	l := p.owners[at]
	delete(p.owners, at)
	p.mu.Unlock()
	if l != nil {
		l.Release()
	}
}

// Opened returns the ids of the tabs opened for the run, in order.
func (p *Tabs) Opened() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := make([]string, len(p.opened))
	for i, t := range p.opened {
		ids[i] = t.ID()
	}
	return ids
}

// CloseOpened closes every tab opened for the run that is still open;
// tabs the person attached stay. Leases still held are released first.
func (p *Tabs) CloseOpened(ctx context.Context) error {
	p.mu.Lock()
	tabs := p.opened
	p.opened, p.pool, p.closed = nil, nil, true
	leases := make([]*browser.Lease, 0, len(p.owners))
	for at, l := range p.owners {
		leases = append(leases, l)
		delete(p.owners, at)
	}
	p.mu.Unlock()
	for _, l := range leases {
		l.Release()
	}
	errs := make([]error, len(tabs))
	var wg sync.WaitGroup
	for i, t := range tabs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := t.Close(ctx); err != nil && !errors.Is(err, browser.ErrTabClosed) && !errors.Is(err, browser.ErrBrowserClosed) {
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// agentTab is one leased tab as an executor sees it: agents.Tab over a
// *browser.Tab. It remembers the controls seen on the current document so
// the safety gate can name an action's target before it runs.
type agentTab struct {
	t     *browser.Tab
	owner string
	opts  browser.ObserveOptions

	// ready, when set, is closed once the tab's first page has loaded;
	// readyErr is why it did not.
	ready    chan struct{}
	readyErr error

	mu       sync.Mutex
	version  int // the observation Diff compares with
	url      string
	controls map[string]browser.Control
}

// ID returns the browser's tab id.
func (a *agentTab) ID() string { return a.t.ID() }

// Info returns the tab's title and URL as the browser last saw them.
func (a *agentTab) Info() agents.TabInfo {
	i := a.t.Info()
	return agents.TabInfo{Title: i.Title, URL: i.URL}
}

func (a *agentTab) ctx(ctx context.Context) context.Context {
	return browser.WithOwner(ctx, a.owner)
}

// loaded waits for the first page to load.
func (a *agentTab) loaded(ctx context.Context) error {
	if a.ready == nil {
		return nil
	}
	select {
	case <-a.ready:
		return a.readyErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Observe returns the page as compact text and makes it Diff's baseline.
func (a *agentTab) Observe(ctx context.Context) (agents.Observation, error) {
	if err := a.loaded(ctx); err != nil {
		return agents.Observation{}, err
	}
	obs, err := a.t.Observe(a.ctx(ctx), a.opts)
	if err != nil {
		return agents.Observation{}, err
	}
	a.mu.Lock()
	a.version = obs.Version
	a.url = obs.URL
	a.remember(obs.Controls, true)
	a.mu.Unlock()
	return agents.Observation{URL: obs.URL, Title: obs.Title, Text: forAgents(obs.Compact())}, nil
}

// Diff returns the browser's changes since the last observation, "" when
// nothing changed, and moves the baseline forward.
func (a *agentTab) Diff(ctx context.Context) (string, error) {
	if err := a.loaded(ctx); err != nil {
		return "", err
	}
	a.mu.Lock()
	since := a.version
	a.mu.Unlock()
	d, err := a.t.Changes(a.ctx(ctx), since, a.opts)
	if err != nil {
		return "", err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.version = d.Version
	if d.Full != nil {
		a.url = d.Full.URL
		a.remember(d.Full.Controls, true)
		return forAgents(d.Compact()), nil
	}
	if d.URL != "" {
		a.url = d.URL
	}
	if a.controls == nil {
		a.controls = map[string]browser.Control{}
	}
	for _, c := range d.Added {
		a.controls[c.Ref] = c
	}
	for _, c := range d.Changed {
		a.controls[c.Ref] = c
	}
	// Removed controls are kept: one scrolled out of the compared view is
	// still on the page and its ref still works.
	if d.Empty() {
		return "", nil
	}
	return forAgents(d.Compact()), nil
}

// Target names what a would touch: the control's role and name, the
// destination of a link, the page's URL otherwise.
func (a *agentTab) Target(ctx context.Context, act agents.Action) (agents.Target, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	tg := agents.Target{URL: a.url}
	ref := act.Ref
	if ref == "" && (act.Kind == agents.ActPress || act.Kind == agents.ActTypeFocused) {
		// Keys and text go to whatever has focus: a password field there
		// keeps typed text out of the log.
		for _, c := range a.controls {
			if c.Focused {
				ref = c.Ref
				break
			}
		}
	}
	if ref == "" {
		return tg, nil
	}
	c, ok := a.controls[ref]
	if !ok {
		return agents.Target{}, fmt.Errorf("%s is not in the latest observation of this page", ref)
	}
	tg.Role, tg.Name, tg.Sensitive, tg.Form, tg.NewTab = c.Role, c.Name, c.Sensitive, c.Form, c.NewTab
	if c.Href != "" {
		if u, err := url.Parse(a.url); err == nil {
			if h, err := u.Parse(c.Href); err == nil {
				tg.URL = h.String()
			}
		}
	}
	return tg, nil
}

// Act performs the action through trusted CDP input; the browser's
// verdict says whether it had any visible effect.
func (a *agentTab) Act(ctx context.Context, act agents.Action) (agents.Outcome, error) {
	if err := a.loaded(ctx); err != nil {
		return agents.Outcome{}, err
	}
	ba := browser.Action{
		Kind: string(act.Kind), Ref: act.Ref, Text: act.Text, Submit: act.Submit, Option: act.Option, Key: act.Key,
		Direction: act.Direction, Amount: act.Amount, X: act.X, Y: act.Y, URL: act.URL,
	}
	r, err := a.t.Do(a.ctx(ctx), ba)
	if err != nil {
		return agents.Outcome{}, a.covered(ctx, err)
	}
	if r.Navigated {
		a.mu.Lock()
		a.url = r.URL
		a.mu.Unlock()
	}
	// Any effect the browser saw counts: a value the page set by script
	// is an effect even when no node changed.
	effect := r.Changed || r.Navigated || len(r.Effects) > 0
	return agents.Outcome{Summary: r.String(), Effect: effect, Navigated: r.Navigated, URL: r.URL, Pending: r.Pending}, nil
}

// Screenshot captures the viewport as PNG; one pixel is one click_at unit.
func (a *agentTab) Screenshot(ctx context.Context) (agents.Screenshot, error) {
	if err := a.loaded(ctx); err != nil {
		return agents.Screenshot{}, err
	}
	s, err := a.t.Screenshot(a.ctx(ctx), browser.ScreenshotOptions{})
	if err != nil {
		return agents.Screenshot{}, err
	}
	mime := "image/png"
	if strings.EqualFold(s.Format, "jpeg") || strings.EqualFold(s.Format, "jpg") {
		mime = "image/jpeg"
	}
	return agents.Screenshot{Data: s.Data, MIME: mime, Width: s.Width, Height: s.Height}, nil
}

// ReadPage returns the page's visible text. It uses its own observation
// options, so it leaves Diff's baseline alone.
func (a *agentTab) ReadPage(ctx context.Context) (string, error) {
	if err := a.loaded(ctx); err != nil {
		return "", err
	}
	obs, err := a.t.Observe(a.ctx(ctx), browser.ObserveOptions{Limit: 1, TextMax: maxReadPage})
	if err != nil {
		return "", err
	}
	return obs.Text, nil
}
