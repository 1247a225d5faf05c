package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"vroom/agents"
	"vroom/app/remote"
	"vroom/browser"
)

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
	// downloads is where the run's tabs save files, and their cap; no
	// Dir leaves the browser's own setting.
	downloads browser.DownloadOptions

	mu     sync.Mutex
	opened []*browser.Tab // tabs opened for the run, in order
	owners map[*Tab]*browser.Lease
	pool   []*browser.Tab // blank tabs opened ahead of need
	closed bool           // CloseOpened was called: late tabs are closed at once
	// pending counts blank tabs being opened by Prewarm; added is closed
	// (and replaced) whenever one is ready, so Open can wait for it
	// rather than open yet another at the same time.
	pending int
	added   chan struct{}
}

// NewTabs returns a provider over b whose leases end at the latest when ctx
// does. With pool, new tabs open in its remote browsers, and b (which may
// then be nil) only holds tabs to attach. opts chooses the view executors
// get (the zero value is the browser's default frontier of 40 controls).
func NewTabs(ctx context.Context, b *browser.Browser, pool *remote.Pool, opts browser.ObserveOptions) *Tabs {
	return &Tabs{b: b, remote: pool, ctx: ctx, opts: opts, owners: map[*Tab]*browser.Lease{}}
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
		t, err := p.NewTab(ctx, "")
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

// Open opens a tab at url leased to owner, in a window of its own (so a
// page another agent's tab opens never leaves it undrawn behind a new
// tab). A prewarmed blank tab is leased before it navigates, so no one
// else can act in it even while it loads; the load goes on after Open
// returns, and the tab's first use waits for it. Without one, browser.Open
// opens the tab (in the window the browser created ahead, when ready) and
// loads the URL there before returning (package browser's doc, "Opening a
// tab").
func (p *Tabs) Open(ctx context.Context, owner, url string) (agents.Tab, error) {
	t, err := p.OpenTab(ctx, owner, url)
	if err != nil {
		return nil, err // a nil *Tab would make a non-nil agents.Tab
	}
	return t, nil
}

// OpenTab is Open giving the adapter itself, for a face that drives the
// tab as an agent does (the MCP server's client).
func (p *Tabs) OpenTab(ctx context.Context, owner, url string) (*Tab, error) {
	t, err := p.fromPool(ctx)
	if err != nil {
		return nil, fmt.Errorf("open tab for %s: %w", owner, err)
	}
	if t == nil {
		if t, err = p.NewTab(ctx, url); t != nil {
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

// NewTab opens a new tab, leased to nobody, in a window of its own: in
// the least-loaded remote browser when the provider has a pool, else in b.
func (p *Tabs) NewTab(ctx context.Context, url string) (*browser.Tab, error) {
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
	t, err := p.AttachTab(ctx, owner, id)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// AttachTab is Attach giving the adapter itself.
func (p *Tabs) AttachTab(ctx context.Context, owner, id string) (*Tab, error) {
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

func (p *Tabs) lease(t *browser.Tab, owner string) (*Tab, error) {
	l, err := t.Lease(p.ctx, owner)
	if err != nil {
		var le *browser.LeaseError
		if errors.As(err, &le) {
			return nil, fmt.Errorf("%w: %s is working in it; wait for it to finish or kill it first", err, le.Holder)
		}
		return nil, err
	}
	at := &Tab{pool: p, owner: owner, opts: p.opts}
	at.cur.Store(t)
	if err := p.setDownloads(browser.WithOwner(p.ctx, owner), t); err != nil {
		l.Release()
		return nil, err
	}
	if err := runWays(browser.WithOwner(p.ctx, owner), t); err != nil {
		l.Release()
		return nil, err
	}
	p.mu.Lock()
	p.owners[at] = l
	p.mu.Unlock()
	return at, nil
}

// runWays gives a leased tab the run's ways, whatever the browser holds
// for the person (the desktop holds every dialog and password request,
// and plays sound): alerts answered at once and reported, a password
// request cancelled after a while, and no sound, since the room is one
// voice at a time.
func runWays(ctx context.Context, t *browser.Tab) error {
	if err := t.SetDialogPolicy(ctx, browser.DefaultDialogPolicy); err != nil {
		return err
	}
	if err := t.SetAuthPolicy(ctx, browser.DefaultAuthPolicy); err != nil {
		return err
	}
	return t.SetMuted(ctx, true)
}

// Release ends owner's lease on the tab; the tab stays open, so a failed
// sub-task can be retried in it.
func (p *Tabs) Release(t agents.Tab, owner string) {
	at, ok := t.(*Tab)
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
