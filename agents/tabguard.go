package agents

import (
	"context"
	"errors"
	"fmt"
)

// ErrUnguarded is what GuardTab wraps for a tab whose document requests
// cannot be held (no GuardedTab under its decorations): the person's data
// could leave it unchecked.
var ErrUnguarded = errors.New("the tab's requests cannot be checked")

// TabGuard is the exfiltration guard of a tab someone drives outside a
// run — vroom mcp's client, acting in a tab itself. It is the guard an
// agent's tab gets (executor.guard): what the pages show and what is typed is
// remembered as the person's data, and the tab's document requests are
// held until a gate of the tab's own has checked them; off the tab's
// sites, a request carrying that data is asked of the confirmer, and
// denied without one.
type TabGuard struct {
	gate  *gate
	agent string
	w     *watchedTab
	stop  func()
}

// GuardTab guards t until ctx ends or Stop. agent names who acts, in what
// the confirmer is asked; p gives the tab's sites (Sites) and the secrets
// that never leave them; c is asked when the person's data would leave
// them (nil: it is denied). With ConfirmLeaveOrigin set, leaving the
// sites at all is asked too; unset, a request off the sites that carries
// none of the person's data goes.
func GuardTab(ctx context.Context, t Tab, agent string, p Policy, c Confirmer) (*TabGuard, error) {
	g := &TabGuard{gate: newGate(p, c), agent: agent, stop: func() {}}
	if err := g.Resume(ctx, t); err != nil {
		return nil, err
	}
	return g, nil
}

// Resume guards t — the same tab leased anew, after a run that held it
// ended — keeping what the guard has learnt: the person's data seen, the
// sites and the answers given. A guard still on is stopped first.
func (g *TabGuard) Resume(ctx context.Context, t Tab) error {
	g.stop()
	w := &watchedTab{Tab: t, seen: g.gate.seen, sites: g.gate.siteList}
	gt, ok := guardedOf(t)
	if !ok {
		return fmt.Errorf("guard tab %s: %w", t.ID(), ErrUnguarded)
	}
	w.guarded = gt
	stop, err := gt.Guard(ctx, func(ctx context.Context, r Request) error {
		w.begin()
		defer w.end()
		err := g.gate.request(ctx, g.agent, w.secrets(ctx), r)
		if err != nil {
			w.refused(err, r.Script || r.Subframe)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("guard tab %s: %w: %w", t.ID(), ErrUnguarded, err)
	}
	g.w, g.stop = w, stop
	return nil
}

// Tab is the guarded tab: observe and act through it, so the guard sees
// what pages show and what is typed.
func (g *TabGuard) Tab() Tab { return g.w }

// Act performs a through the guard. refused is why the guard stopped a
// request the action caused ("" when none did); the outcome's Summary
// then says so, as an agent reads it.
func (g *TabGuard) Act(ctx context.Context, a Action) (o Outcome, refused string, err error) {
	return g.w.act(ctx, a)
}

// Destination checks where a link that opens a new tab leads, before the
// click: the new tab's requests are outside this guard. Off the tab's
// sites it asks as a request would.
func (g *TabGuard) Destination(ctx context.Context, raw string) error {
	return g.gate.destination(ctx, g.agent, raw)
}

// Stop removes the guard: the tab's requests go unchecked until another
// holder guards it (an agent's, when the tab is lent to a run). It is
// safe to call more than once.
func (g *TabGuard) Stop() { g.stop() }
