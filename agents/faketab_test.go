package agents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// fakeTab is a page in memory for unit tests of the loops: a list of
// controls whose clicks change the page. The real tab is tested in the
// browser package and end to end in app.
type fakeTab struct {
	id string

	mu       sync.Mutex
	url      string
	title    string
	text     string // page text besides the controls (where an injection hides)
	controls []*fakeControl
	values   map[string]string
	changes  []string
	acts     []Action
	history  []string
	// onNavigate, when set, builds the page at a new URL.
	onNavigate func(t *fakeTab, url string)
	// waitFor, when set, answers Wait; by default a wait is met at once.
	waitFor func(ctx context.Context, t *fakeTab, w WaitFor, timeout time.Duration) (WaitOutcome, error)
	finds   []FindOptions
}

type fakeControl struct {
	ref, role, name, form string
	sensitive             bool
	// click changes the page and describes the change; "" is no effect.
	click func(t *fakeTab) string
	// unseen makes the tab report no effect even when click changed the
	// page, as a browser that missed a value change would; pending is
	// the requests it reports still in flight.
	unseen  bool
	pending int
}

func newFakeTab(id, url string) *fakeTab {
	return &fakeTab{id: id, url: url, title: "Fixture", values: map[string]string{}}
}

func (t *fakeTab) ID() string { return t.id }

func (t *fakeTab) Info() TabInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return TabInfo{Title: t.title, URL: t.url}
}

func (t *fakeTab) addControl(c *fakeControl) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.controls = append(t.controls, c)
}

func (t *fakeTab) Observe(ctx context.Context) (Observation, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.changes = nil
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\nTitle: %s\n", t.url, t.title)
	if t.text != "" {
		b.WriteString(t.text + "\n")
	}
	for _, c := range t.controls {
		fmt.Fprintf(&b, "%s %s %q", c.ref, c.role, c.name)
		if v := t.values[c.ref]; v != "" && !c.sensitive {
			fmt.Fprintf(&b, " value=%q", v)
		}
		b.WriteByte('\n')
	}
	return Observation{URL: t.url, Title: t.title, Text: b.String()}, nil
}

// Find lists the controls whose name contains opts.Query, whichever are
// "in view".
func (t *fakeTab) Find(ctx context.Context, opts FindOptions) (Observation, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.finds = append(t.finds, opts)
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\nTitle: %s\n", t.url, t.title)
	for _, c := range t.controls {
		if strings.Contains(strings.ToLower(c.name), strings.ToLower(opts.Query)) {
			fmt.Fprintf(&b, "%s %s %q\n", c.ref, c.role, c.name)
		}
	}
	return Observation{URL: t.url, Title: t.title, Text: b.String()}, nil
}

// Wait calls waitFor outside the tab's lock, so the page can change
// meanwhile.
func (t *fakeTab) Wait(ctx context.Context, w WaitFor, timeout time.Duration) (WaitOutcome, error) {
	t.mu.Lock()
	f := t.waitFor
	t.mu.Unlock()
	if f == nil {
		return WaitOutcome{Met: true, Condition: w.String()}, nil
	}
	return f(ctx, t, w, timeout)
}

func (t *fakeTab) Diff(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := strings.Join(t.changes, "\n")
	t.changes = nil
	return d, nil
}

func (t *fakeTab) control(ref string) *fakeControl {
	for _, c := range t.controls {
		if c.ref == ref {
			return c
		}
	}
	return nil
}

func (t *fakeTab) Target(ctx context.Context, a Action) (Target, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if a.Ref == "" {
		return Target{URL: t.url}, nil
	}
	c := t.control(a.Ref)
	if c == nil {
		return Target{}, fmt.Errorf("no control %s on the page", a.Ref)
	}
	return Target{Role: c.role, Name: c.name, Form: c.form, URL: t.url, Sensitive: c.sensitive}, nil
}

func (t *fakeTab) Act(ctx context.Context, a Action) (Outcome, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.acts = append(t.acts, a)
	switch a.Kind {
	case ActClick:
		c := t.control(a.Ref)
		if c == nil {
			return Outcome{}, fmt.Errorf("click %s: no such control", a.Ref)
		}
		before := t.url
		ch := ""
		if c.click != nil {
			ch = c.click(t)
		}
		if ch != "" {
			t.changes = append(t.changes, ch)
		}
		o := Outcome{Effect: ch != "" && !c.unseen, Navigated: t.url != before, URL: t.url, Pending: c.pending}
		if !o.Effect {
			o.Summary = "click " + a.Ref + ": " + NoEffect
		}
		return o, nil
	case ActType:
		if t.control(a.Ref) == nil {
			return Outcome{}, fmt.Errorf("type %s: no such control", a.Ref)
		}
		t.values[a.Ref] = a.Text
		t.changes = append(t.changes, fmt.Sprintf("%s value changed", a.Ref))
		return Outcome{Effect: true, URL: t.url}, nil
	case ActNavigate:
		t.history = append(t.history, t.url)
		t.url = a.URL
		t.controls = nil
		if t.onNavigate != nil {
			t.onNavigate(t, a.URL)
		}
		return Outcome{Effect: true, Navigated: true, URL: t.url}, nil
	case ActBack:
		if len(t.history) == 0 {
			return Outcome{URL: t.url}, nil
		}
		t.url = t.history[len(t.history)-1]
		t.history = t.history[:len(t.history)-1]
		return Outcome{Effect: true, Navigated: true, URL: t.url}, nil
	case ActScroll:
		t.changes = append(t.changes, "scrolled")
		return Outcome{Effect: true, URL: t.url}, nil
	}
	return Outcome{URL: t.url}, nil
}

func (t *fakeTab) Screenshot(ctx context.Context) (Screenshot, error) {
	return Screenshot{Data: []byte("\x89PNG fake"), MIME: "image/png", Width: 1280, Height: 800}, nil
}

func (t *fakeTab) ReadPage(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.text, nil
}

func (t *fakeTab) actions() []Action {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Action(nil), t.acts...)
}

// fakeTabs provides fake tabs with leases.
type fakeTabs struct {
	mu     sync.Mutex
	tabs   map[string]*fakeTab
	leases map[string]string
	opened int
	// page, when set, furnishes a newly opened tab.
	page func(t *fakeTab)
	// releasing, when set, runs before a lease ends (a slow unwind).
	releasing func()
}

func newFakeTabs() *fakeTabs {
	return &fakeTabs{tabs: map[string]*fakeTab{}, leases: map[string]string{}}
}

var errLeased = errors.New("tab leased")

func (p *fakeTabs) Open(ctx context.Context, owner, url string) (Tab, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.opened++
	t := newFakeTab(fmt.Sprintf("tab-%d", p.opened), url)
	if url == "" {
		t.url = "about:blank"
	}
	if p.page != nil {
		p.page(t)
	}
	p.tabs[t.id] = t
	p.leases[t.id] = owner
	return t, nil
}

func (p *fakeTabs) Describe(ctx context.Context, id string) (TabInfo, error) {
	p.mu.Lock()
	t, ok := p.tabs[id]
	p.mu.Unlock()
	if !ok {
		return TabInfo{}, fmt.Errorf("describe %s: no such tab", id)
	}
	return t.Info(), nil
}

func (p *fakeTabs) Attach(ctx context.Context, owner, id string) (Tab, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.tabs[id]
	if !ok {
		return nil, fmt.Errorf("attach %s: no such tab", id)
	}
	if o := p.leases[id]; o != "" && o != owner {
		return nil, fmt.Errorf("attach %s: %w by %s", id, errLeased, o)
	}
	p.leases[id] = owner
	return t, nil
}

func (p *fakeTabs) Release(t Tab, owner string) {
	if p.releasing != nil {
		p.releasing()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.leases[t.ID()] == owner {
		delete(p.leases, t.ID())
	}
}

func (p *fakeTabs) put(t *fakeTab) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tabs[t.id] = t
}

func (p *fakeTabs) tab(id string) *fakeTab {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tabs[id]
}

func (p *fakeTabs) openedCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.opened
}
