package runner

import (
	"context"
	"fmt"

	"vroom/agents"
	"vroom/browser"
)

// The exfiltration guard's half in app: an agent's tab holds its document
// requests, and those its pages' scripts send, for the run's gate
// (agents.GuardedTab over browser.Tab.Guard).

// Guard holds the tab's requests until check answers, under the agent's
// lease.
func (a *Tab) Guard(ctx context.Context, check func(ctx context.Context, r agents.Request) error) (func(), error) {
	bt := a.tb()
	stop, err := bt.Guard(a.ctx(ctx), func(ctx context.Context, r browser.Request) error {
		// A window the tab's page opened carries its guard: its own top
		// frame's documents are navigations, as the tab's are.
		sub := !r.Script && r.Frame != "" && r.Frame != r.Tab
		return check(ctx, agents.Request{URL: r.URL, Method: r.Method, Body: r.Body, Redirect: r.Redirect, Script: r.Script, Subframe: sub, InPage: r.Refused.What(), Masked: r.Masked})
	})
	if err != nil {
		return nil, fmt.Errorf("guard the tab's requests: %w", err)
	}
	return stop, nil
}

// Secrets returns the cookies of the run's sites and the masked fields'
// values the tab holds.
func (a *Tab) Secrets(ctx context.Context, sites []string) ([]agents.Secret, error) {
	ss, err := a.tb().Secrets(ctx, sites)
	out := make([]agents.Secret, len(ss))
	for i, s := range ss {
		out[i] = agents.Secret{What: s.What, Value: s.Value, Cookie: s.Cookie}
	}
	return out, err
}

// Unwrap returns the adapter's tab under the error mapping, for the guard.
func (t goneTab) Unwrap() agents.Tab { return t.Tab }

// The adapter is the guarded kind of agents.Tab.
var _ agents.GuardedTab = (*Tab)(nil)

// AllowSockets lets the tab's guarded pages open sockets to the run's
// sites besides their own host.
func (a *Tab) AllowSockets(ctx context.Context, sites []string) error {
	if err := a.tb().AllowSockets(ctx, sites); err != nil {
		return fmt.Errorf("allow the tab's sockets: %w", err)
	}
	return nil
}
