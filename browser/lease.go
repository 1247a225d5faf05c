package browser

import (
	"context"
	"fmt"
	"sync"
)

// ownerKey carries the caller's identity for lease checks.
type ownerKey struct{}

// WithOwner returns a context whose calls act as owner (an agent id, or
// "user" for the person). Calls on a tab leased to someone else fail.
func WithOwner(ctx context.Context, owner string) context.Context {
	return context.WithValue(ctx, ownerKey{}, owner)
}

// OwnerFrom returns the owner set by WithOwner, or "".
func OwnerFrom(ctx context.Context) string {
	o, _ := ctx.Value(ownerKey{}).(string)
	return o
}

// Lease is exclusive use of a tab by one owner for a whole
// read-think-act sequence.
type Lease struct {
	t     *Tab
	owner string
	ctx   context.Context
	stop  func() bool
	once  sync.Once
}

// Owner is the lease holder.
func (l *Lease) Owner() string { return l.owner }

// Release gives the tab back. It is safe to call more than once.
func (l *Lease) Release() {
	l.once.Do(func() {
		l.stop()
		t := l.t
		t.mu.Lock()
		if t.lease == l {
			t.lease = nil
		}
		t.mu.Unlock()
		t.b.emit(Event{Kind: TabReleased, Tab: t.Info()})
	})
}

// Lease gives owner exclusive use of the tab until Release or until ctx
// ends. Anyone else's calls get a *LeaseError (ErrTabLeased). Leasing a tab
// the owner already holds returns the existing lease.
func (t *Tab) Lease(ctx context.Context, owner string) (*Lease, error) {
	if owner == "" {
		return nil, fmt.Errorf("lease %s: %w: empty owner", t.id, ErrBadArgument)
	}
	if err := context.Cause(t.dead); err != nil {
		return nil, fmt.Errorf("lease %s: %w", t.id, err)
	}
	t.mu.Lock()
	if l := t.lease; l != nil {
		t.mu.Unlock()
		if l.owner == owner {
			return l, nil
		}
		return nil, &LeaseError{Tab: t.id, Holder: l.owner}
	}
	l := &Lease{t: t, owner: owner, ctx: ctx}
	t.lease = l
	t.mu.Unlock()
	l.stop = context.AfterFunc(ctx, l.Release)
	t.b.emit(Event{Kind: TabLeased, Tab: t.Info()})
	return l, nil
}

// handPopup gives a popup to whoever holds the opener, with the opener's
// dialog policy and download folder.
func (t *Tab) handPopup(p *Tab) {
	t.dlg.mu.Lock()
	policy := t.dlg.policy
	t.dlg.mu.Unlock()
	p.dlg.mu.Lock()
	if p.dlg.policy == nil {
		p.dlg.policy = policy
	}
	p.dlg.mu.Unlock()
	t.auth.mu.Lock()
	ap := t.auth.policy
	t.auth.mu.Unlock()
	p.auth.mu.Lock()
	if p.auth.policy == nil {
		p.auth.policy = ap
	}
	p.auth.mu.Unlock()
	if o := t.dlo.Load(); o != nil {
		p.dlo.CompareAndSwap(nil, o)
	}
	t.mu.Lock()
	l := t.lease
	t.mu.Unlock()
	if l == nil {
		return
	}
	// The opener's holder is not waiting on the popup; if it cannot have
	// it (the popup died, or someone leased it first), the popup stays
	// with whoever has it, and the log says why.
	if _, err := p.Lease(l.ctx, l.owner); err != nil {
		t.b.opts.Logf("popup %s for %s: %v", p.id, l.owner, err)
	}
}
