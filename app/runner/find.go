package runner

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"vroom/agents"
	"vroom/browser"
)

// The adapter's searches: describing a tab before it is leased,
// the executor's observe (Find) and wait, and the hints the model reads.

// Describe tells the planner what the existing tab id shows, by title and
// URL, without leasing it.
func (p *Tabs) Describe(ctx context.Context, id string) (agents.TabInfo, error) {
	t, err := p.tab(id)
	if err != nil {
		return agents.TabInfo{}, fmt.Errorf("describe tab %s: %w", id, err)
	}
	i := t.Info()
	return agents.TabInfo{Title: i.Title, URL: i.URL}, nil
}

// Find observes the controls matching o over the whole page, in view
// first. It leaves Diff's baseline where it was: a search shows part of
// the page, and the next diff must still report everything that changed
// since the agent's last whole look. The controls found join those the
// safety gate knows, so a ref found here can be acted on.
func (a *Tab) Find(ctx context.Context, o agents.FindOptions) (agents.Observation, error) {
	if err := a.loaded(ctx); err != nil {
		return agents.Observation{}, err
	}
	opts := a.opts
	opts.Query, opts.Roles, opts.Within = o.Query, o.Roles, o.Within
	if o.Limit > 0 {
		opts.Limit = o.Limit
	}
	obs, err := a.tb().Observe(a.ctx(ctx), opts)
	if err != nil {
		return agents.Observation{}, err
	}
	a.mu.Lock()
	a.url = obs.URL
	a.remember(obs.Controls, false)
	a.mu.Unlock()
	return agents.Observation{URL: obs.URL, Title: obs.Title, Text: forAgents(obs.Compact())}, nil
}

// remember adds controls to those the safety gate knows, keeping the
// others: a ref found by a search must stay usable after the next whole
// view (which need not show it). The browser never reuses a ref within a
// tab, so a remembered ref names its own element or a gone one (whose
// action then fails as stale), never another control. A whole view is the
// truth about focus: keys go to the focused control, and a password field
// focused earlier must not be mistaken for it, nor the other way round.
// a.mu is held.
func (a *Tab) remember(cs []browser.Control, whole bool) {
	if a.controls == nil {
		a.controls = make(map[string]browser.Control, len(cs))
	}
	if whole {
		for ref, c := range a.controls {
			if c.Focused {
				c.Focused = false
				a.controls[ref] = c
			}
		}
	}
	for _, c := range cs {
		a.controls[c.Ref] = c
	}
}

// coverLimit bounds the covering layer's controls under a refused action:
// enough for a popup's close, decline and form, few enough to stay compact.
const coverLimit = 12

// covered turns an action refused because a layer covers its target (a
// popup, a cookie banner, a chat bubble, a sticky header) into an
// agents.CoveredError carrying that layer's controls, with refs the safety
// gate then knows: the model can close the layer in its next call instead
// of spending one on looking. Any other error, or a layer that could not
// be observed (the refusal stands on its own), is returned as it is.
func (a *Tab) covered(ctx context.Context, err error) error {
	var ae *browser.ActionError
	if !errors.As(err, &ae) || ae.Layer == "" {
		return err
	}
	obs, oerr := a.tb().Observe(a.ctx(ctx), browser.ObserveOptions{Within: ae.Layer, Limit: coverLimit, TextMax: 200})
	if oerr != nil || len(obs.Controls) == 0 && obs.Text == "" {
		return err
	}
	a.mu.Lock()
	a.remember(obs.Controls, false)
	a.mu.Unlock()
	return &agents.CoveredError{Err: err, URL: obs.URL, Cover: forAgents(obs.Brief())}
}

// Wait waits in the page for w, or for quiet when w is empty. A timeout is
// an outcome with Met false.
func (a *Tab) Wait(ctx context.Context, w agents.WaitFor, timeout time.Duration) (agents.WaitOutcome, error) {
	if err := a.loaded(ctx); err != nil {
		return agents.WaitOutcome{}, err
	}
	r, err := a.tb().Wait(a.ctx(ctx), browser.WaitFor{Text: w.Text, Gone: w.Gone, URL: w.URL, Query: w.Query}, timeout)
	if err != nil {
		return agents.WaitOutcome{}, err
	}
	return agents.WaitOutcome{Met: r.Met, Condition: r.Condition, Took: r.Took, Pending: r.Pending}, nil
}

// The browser's hints name what its own API can do (query, roles); an
// executor does that with its observe tool, so the hints it reads say so.
var (
	moreHintRE   = regexp.MustCompile(`\(more exist:[^)]*\)`)
	widenHintRE  = regexp.MustCompile(`\(the page has more;[^)]*\)`)
	moreForAgent = "(more exist: call observe with query or roles)"
	widenAgent   = "(the page has more: call observe with a query to look elsewhere)"
)

// forAgents rewrites the browser's hints in a compact observation or diff
// for the executor's tools.
func forAgents(s string) string {
	s = moreHintRE.ReplaceAllLiteralString(s, moreForAgent)
	return widenHintRE.ReplaceAllLiteralString(s, widenAgent)
}
