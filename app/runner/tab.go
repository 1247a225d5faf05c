package runner

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"vroom/agents"
	"vroom/browser"
)

// Tab is one leased tab as an executor sees it: agents.Tab over a
// *browser.Tab. It remembers the controls seen on the current document so
// the safety gate can name an action's target before it runs.
type Tab struct {
	// cur is the tab the executor sees: the leased one, or a popup it
	// opened until that closes (openers holds the way back).
	cur   atomic.Pointer[browser.Tab]
	pool  *Tabs
	owner string
	opts  browser.ObserveOptions

	// ready, when set, is closed once the tab's first page has loaded;
	// readyErr is why it did not.
	ready    chan struct{}
	readyErr error

	mu       sync.Mutex
	openers  []*browser.Tab
	dialog   *browser.Dialog // the dialog the last action left open
	version  int             // the observation Diff compares with
	url      string
	controls map[string]browser.Control
}

// tb is the browser tab the executor sees now.
func (a *Tab) tb() *browser.Tab { return a.cur.Load() }

// ID returns the browser's tab id.
func (a *Tab) ID() string { return a.tb().ID() }

// Close closes the browser's tab; its holder releases it first (Tabs.Release).
func (a *Tab) Close(ctx context.Context) error { return a.tb().Close(ctx) }

// Info returns the tab's title and URL as the browser last saw them.
func (a *Tab) Info() agents.TabInfo {
	i := a.tb().Info()
	return agents.TabInfo{Title: i.Title, URL: i.URL}
}

func (a *Tab) ctx(ctx context.Context) context.Context {
	return browser.WithOwner(ctx, a.owner)
}

// loaded waits for the first page to load.
func (a *Tab) loaded(ctx context.Context) error {
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
func (a *Tab) Observe(ctx context.Context) (agents.Observation, error) {
	if err := a.loaded(ctx); err != nil {
		return agents.Observation{}, err
	}
	obs, err := a.tb().Observe(a.ctx(ctx), a.opts)
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
func (a *Tab) Diff(ctx context.Context) (string, error) {
	if err := a.loaded(ctx); err != nil {
		return "", err
	}
	a.mu.Lock()
	since := a.version
	a.mu.Unlock()
	d, err := a.tb().Changes(a.ctx(ctx), since, a.opts)
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
func (a *Tab) Target(ctx context.Context, act agents.Action) (agents.Target, error) {
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
	if act.Kind == agents.ActDialog && a.dialog != nil {
		// A dialog's message is what accepting it commits to.
		tg.Role, tg.Name = string(a.dialog.Kind), a.dialog.Message
		return tg, nil
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
func (a *Tab) Act(ctx context.Context, act agents.Action) (agents.Outcome, error) {
	if err := a.loaded(ctx); err != nil {
		return agents.Outcome{}, err
	}
	ba := browser.Action{
		Kind: browser.ActionKind(act.Kind), Ref: act.Ref, Text: act.Text, Submit: act.Submit, Option: act.Option, Key: act.Key,
		Direction: act.Direction, Amount: act.Amount, X: act.X, Y: act.Y, URL: act.URL,
		Files: act.Files, To: act.To, DX: act.DX, DY: act.DY, Accept: act.Accept,
	}
	r, err := a.tb().Do(a.ctx(ctx), ba)
	if err != nil {
		return agents.Outcome{}, a.covered(ctx, err)
	}
	a.noteDialog(r)
	if out, ok := a.follow(ctx, r); ok {
		return out, nil
	}
	if r.Navigated {
		a.mu.Lock()
		a.url = r.URL
		a.mu.Unlock()
	}
	// Any effect the browser saw counts: a value the page set by script
	// is an effect even when no node changed.
	effect := r.Changed || r.Navigated || len(r.Effects) > 0
	return agents.Outcome{Summary: r.String(), Effect: effect, Navigated: r.Navigated, URL: r.URL, Pending: r.Pending, Dialog: pageDialog(r.Dialog)}, nil
}

// Screenshot captures the viewport as PNG; one pixel is one click_at unit.
func (a *Tab) Screenshot(ctx context.Context) (agents.Screenshot, error) {
	if err := a.loaded(ctx); err != nil {
		return agents.Screenshot{}, err
	}
	s, err := a.tb().Screenshot(a.ctx(ctx), browser.ScreenshotOptions{})
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
func (a *Tab) ReadPage(ctx context.Context) (string, error) {
	if err := a.loaded(ctx); err != nil {
		return "", err
	}
	pt, err := a.tb().ReadText(a.ctx(ctx), browser.ReadOptions{})
	if err != nil {
		return "", err
	}
	return pt.Text, nil
}
