package remote

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"vroom/browser"
)

// The pool's other faces: connecting ahead (vroom run checks its
// endpoints before the run), finding a tab by id (attach, the live view,
// take-over), its status, and closing.

// Connect dials every endpoint not connected and due for a try, at the
// same time, and returns once each has answered. It is an error wrapping
// ErrNoEndpoint, with each endpoint's failure, when none is up after it;
// some being down is not (Open skips them).
func (p *Pool) Connect(ctx context.Context) error {
	p.mu.Lock()
	now := p.opts.Now()
	var todo []*endpoint
	for _, ep := range p.eps {
		if ep.b == nil && ep.usable(now) {
			todo = append(todo, ep)
		}
	}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, ep := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = p.connect(ctx, ep) // a failure is in the endpoint's status
		}()
	}
	wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	errs := []error{ErrNoEndpoint}
	for _, ep := range p.eps {
		if ep.b != nil {
			return nil
		}
		if ep.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ep.name, ep.err))
		}
	}
	return fmt.Errorf("connect the remote browsers: %w", errors.Join(errs...))
}

// Tab finds the tab id in the connected endpoints.
func (p *Pool) Tab(id string) (*browser.Tab, error) {
	for _, b := range p.browsers() {
		if t, err := b.Tab(id); err == nil {
			return t, nil
		}
	}
	return nil, fmt.Errorf("tab %s: %w", id, browser.ErrTabClosed)
}

// browsers lists the connected endpoints' browsers.
func (p *Pool) browsers() []*browser.Browser {
	p.mu.Lock()
	defer p.mu.Unlock()
	var bs []*browser.Browser
	for _, ep := range p.eps {
		if ep.b != nil {
			bs = append(bs, ep.b)
		}
	}
	return bs
}

// Usable counts the endpoints that are up or due for a try.
func (p *Pool) Usable() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.usableLocked()
}

// Status describes every endpoint, in the order configured.
func (p *Pool) Status() []Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Status, len(p.eps))
	for i, ep := range p.eps {
		s := Status{Name: ep.name, Connected: ep.b != nil, Tabs: ep.load() - ep.pending, Opened: ep.opened}
		if ep.b == nil && ep.err != nil {
			s.Down, s.RetryAt = ep.err.Error(), ep.retryAt
		}
		out[i] = s
	}
	return out
}

// Close disconnects from every endpoint (the tabs opened through the pool
// are left to the remote browser, which closes a connection's tabs or
// not as it does) and returns what disconnecting met. Later Opens fail.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	var bs []*browser.Browser
	for _, ep := range p.eps {
		if ep.b != nil {
			bs = append(bs, ep.b)
			ep.b = nil
		}
	}
	p.mu.Unlock()
	var errs []error
	for _, b := range bs {
		errs = append(errs, b.Close())
	}
	return errors.Join(errs...)
}

// Where names the endpoint holding the tab id (credentials hidden); ""
// when no connected endpoint has it.
func (p *Pool) Where(id string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ep := range p.eps {
		if ep.b == nil {
			continue
		}
		if _, err := ep.b.Tab(id); err == nil {
			return ep.name
		}
	}
	return ""
}
