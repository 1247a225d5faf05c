package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"vroom/agents"
	"vroom/browser"
)

// tabErr maps a browser error to what agents acts on: a browser that died
// is agents.ErrBrowserGone and a closed or crashed tab agents.ErrTabGone,
// each ending its agent at once (the run, headless) instead of going back
// to the model as one more tool result it cannot do anything about. The
// browser's own error stays wrapped, for errors.Is and the log.
func tabErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, browser.ErrBrowserClosed):
		return fmt.Errorf("%w (%w)", agents.ErrBrowserGone, err)
	case errors.Is(err, browser.ErrTabClosed), errors.Is(err, browser.ErrTabCrashed):
		return fmt.Errorf("%w (%w)", agents.ErrTabGone, err)
	}
	return err
}

// goneTabs is the run's TabProvider with tabErr over every tab's errors.
type goneTabs struct{ agents.TabProvider }

// Open opens a tab whose errors say when it is gone.
func (p goneTabs) Open(ctx context.Context, owner, url string) (agents.Tab, error) {
	t, err := p.TabProvider.Open(ctx, owner, url)
	if err != nil {
		return nil, tabErr(err)
	}
	return goneTab{t}, nil
}

// Attach leases an existing tab whose errors say when it is gone.
func (p goneTabs) Attach(ctx context.Context, owner, id string) (agents.Tab, error) {
	t, err := p.TabProvider.Attach(ctx, owner, id)
	if err != nil {
		return nil, tabErr(err)
	}
	return goneTab{t}, nil
}

// Release hands the adapter its own tab back.
func (p goneTabs) Release(t agents.Tab, owner string) {
	if g, ok := t.(goneTab); ok {
		t = g.Tab
	}
	p.TabProvider.Release(t, owner)
}

// goneTab is an agents.Tab whose errors go through tabErr.
type goneTab struct{ agents.Tab }

// Observe observes the page.
func (t goneTab) Observe(ctx context.Context) (agents.Observation, error) {
	o, err := t.Tab.Observe(ctx)
	return o, tabErr(err)
}

// Find searches the page's controls. A search is a call like any other:
// a tab gone under it ends its agent too, rather than going back to the
// model as an observe that failed.
func (t goneTab) Find(ctx context.Context, o agents.FindOptions) (agents.Observation, error) {
	obs, err := t.Tab.Find(ctx, o)
	return obs, tabErr(err)
}

// Wait waits in the page; the tab dying under it ends the wait as gone.
func (t goneTab) Wait(ctx context.Context, w agents.WaitFor, timeout time.Duration) (agents.WaitOutcome, error) {
	out, err := t.Tab.Wait(ctx, w, timeout)
	return out, tabErr(err)
}

// Diff describes what changed.
func (t goneTab) Diff(ctx context.Context) (string, error) {
	d, err := t.Tab.Diff(ctx)
	return d, tabErr(err)
}

// Target names an action's target.
func (t goneTab) Target(ctx context.Context, a agents.Action) (agents.Target, error) {
	g, err := t.Tab.Target(ctx, a)
	return g, tabErr(err)
}

// Act performs an action.
func (t goneTab) Act(ctx context.Context, a agents.Action) (agents.Outcome, error) {
	o, err := t.Tab.Act(ctx, a)
	return o, tabErr(err)
}

// Screenshot captures the viewport.
func (t goneTab) Screenshot(ctx context.Context) (agents.Screenshot, error) {
	s, err := t.Tab.Screenshot(ctx)
	return s, tabErr(err)
}

// ReadPage reads the page's text.
func (t goneTab) ReadPage(ctx context.Context) (string, error) {
	s, err := t.Tab.ReadPage(ctx)
	return s, tabErr(err)
}
