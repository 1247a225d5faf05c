package agents

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Faults no retry can mend. An agent that meets one stops at once: the
// model is never asked again with the same error in its prompt, which would
// only pay for calls that cannot succeed.
var (
	// ErrTabGone is what a Tab's calls wrap once the tab is closed or has
	// crashed: the agent working in it ends failed, at once.
	ErrTabGone = errors.New("the tab is gone")
	// ErrBrowserGone is what a Tab's calls wrap once the whole browser has
	// died (crash, kill, a closed remote connection). Every agent's tab is
	// gone; with Config.FailOnBrowserGone the whole run ends.
	ErrBrowserGone = errors.New("the browser closed")
	// ErrKeyRefused means the model server refused the API key (401 or
	// 403). It ends the whole run: every agent uses the same key.
	ErrKeyRefused = errors.New("the API key was refused")
	// ErrModelUnreachable means the model server could not be reached
	// after every retry. It ends the whole run.
	ErrModelUnreachable = errors.New("the model server is unreachable")
	// ErrModelGarbage means the model answered an agent with no usable
	// tool call garbageLimit times in a row (twice with malformed
	// arguments, after one explanation). It ends that agent; the planner
	// decides, as it does for any failed agent.
	ErrModelGarbage = errors.New("the model keeps answering without a usable tool call")
)

// garbageLimit is how many replies in a row without a usable tool call
// (prose, malformed arguments, mixed) stop an agent.
const garbageLimit = 3

// ModelFault is a model failure no retry mends: the key refused, or the
// server unreachable. errors.Is matches its Kind (ErrKeyRefused or
// ErrModelUnreachable) and ErrModel; errors.As finds the cause.
type ModelFault struct {
	Kind     error  // ErrKeyRefused, ErrModelUnreachable, ErrModelStalled or ErrModelBusy
	URL      string // the server's base URL
	Status   int    // the HTTP status, when one came back
	Attempts int
	// RetryAfter is how long the server asked to be left alone, and
	// MaxWait the longest Vroom waits (ErrModelBusy).
	RetryAfter, MaxWait time.Duration
	// Hint says where the person fixes it (the key's setting), if known.
	Hint string
	Err  error
}

// Error says what failed, where, and what to do about it.
func (e *ModelFault) Error() string {
	var s string
	switch {
	case errors.Is(e.Kind, ErrKeyRefused):
		s = fmt.Sprintf("%v by %s (HTTP %d %s)", e.Kind, e.URL, e.Status, http.StatusText(e.Status))
	case errors.Is(e.Kind, ErrModelBusy):
		s = fmt.Sprintf("%v: %s asks to be retried in %s, longer than the %s Vroom waits (HTTP %d); try again later",
			e.Kind, e.URL, e.RetryAfter.Round(time.Second), e.MaxWait.Round(time.Second), e.Status)
	case errors.Is(e.Kind, ErrModelStalled):
		s = fmt.Sprintf("%s stopped answering (%d attempts; %v)", e.URL, e.Attempts, e.Err)
	default:
		s = fmt.Sprintf("%v: %s did not answer after %d attempts: %v", e.Kind, e.URL, e.Attempts, e.Err)
	}
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

// Unwrap matches the fault's kind, ErrModel, and the cause.
func (e *ModelFault) Unwrap() []error { return []error{e.Kind, ErrModel, e.Err} }

// runFault reports whether err ends the whole run, not just its agent.
func runFault(err error) bool {
	return errors.Is(err, ErrKeyRefused) || errors.Is(err, ErrModelUnreachable) ||
		errors.Is(err, ErrModelStalled) || errors.Is(err, ErrModelBusy)
}

// Fail ends the run at once with err as its cause: every agent stops, no
// model is called again, and Execute returns err. It is for faults no
// retry can mend (the browser gone headless, the key refused). A run
// already over is left alone.
func (r *Run) Fail(err error) {
	r.kill(err, err.Error())
}

// LoseTabs ends every running executor as failed, at once, because its
// tab is gone with the browser (err says why): the planner's wait reports
// each one once, and the planner decides what next. The run goes on; a
// new spawn gets a tab in whatever browser there is now.
func (r *Run) LoseTabs(err error) {
	r.procs.mu.Lock()
	var live []*proc
	for _, p := range r.procs.procs {
		if !p.info.State.Finished() {
			live = append(live, p)
		}
	}
	r.procs.mu.Unlock()
	for _, p := range live {
		r.loseTab(p, err)
	}
}

// tabGone ends the executor named owner because its tab is gone.
func (r *Run) tabGone(owner string, err error) {
	if r.cfg.FailOnBrowserGone && errors.Is(err, ErrBrowserGone) {
		r.Fail(err)
		return
	}
	r.procs.mu.Lock()
	var p *proc
	for _, q := range r.procs.procs {
		if q.info.Agent == owner && !q.info.State.Finished() {
			p = q
		}
	}
	r.procs.mu.Unlock()
	if p != nil {
		r.loseTab(p, err)
	}
}

// loseTab fails p with a summary saying its tab is gone and stops it; the
// first final state wins, so a process already ended is told nothing.
func (r *Run) loseTab(p *proc, err error) {
	summary := "its tab is gone: " + err.Error() + "; nothing more can be done there"
	r.procs.finish(p, ProcFailed, summary, false)
	p.cancel()
}

// faultTabs wraps the run's TabProvider so that a tab's call failing with
// ErrTabGone or ErrBrowserGone ends its agent there and then, before the
// error could go back to the model as a tool result.
type faultTabs struct {
	TabProvider
	r *Run
}

// Open opens a tab through the wrapped provider, watched for its loss.
func (p faultTabs) Open(ctx context.Context, owner, url string) (Tab, error) {
	t, err := p.TabProvider.Open(ctx, owner, url)
	if err != nil {
		return nil, err
	}
	return &faultTab{Tab: t, r: p.r, owner: owner}, nil
}

// Attach leases an existing tab through the wrapped provider, watched for
// its loss.
func (p faultTabs) Attach(ctx context.Context, owner, id string) (Tab, error) {
	t, err := p.TabProvider.Attach(ctx, owner, id)
	if err != nil {
		return nil, err
	}
	return &faultTab{Tab: t, r: p.r, owner: owner}, nil
}

// Release hands the provider its own tab back.
func (p faultTabs) Release(t Tab, owner string) {
	if ft, ok := t.(*faultTab); ok {
		t = ft.Tab
	}
	p.TabProvider.Release(t, owner)
}

// faultTab is a Tab whose loss ends its agent.
type faultTab struct {
	Tab
	r     *Run
	owner string
}

func (t *faultTab) check(err error) {
	if errors.Is(err, ErrTabGone) || errors.Is(err, ErrBrowserGone) {
		t.r.tabGone(t.owner, err)
	}
}

func (t *faultTab) Observe(ctx context.Context) (Observation, error) {
	o, err := t.Tab.Observe(ctx)
	t.check(err)
	return o, err
}

func (t *faultTab) Find(ctx context.Context, o FindOptions) (Observation, error) {
	obs, err := t.Tab.Find(ctx, o)
	t.check(err)
	return obs, err
}

func (t *faultTab) Wait(ctx context.Context, w WaitFor, timeout time.Duration) (WaitOutcome, error) {
	out, err := t.Tab.Wait(ctx, w, timeout)
	t.check(err)
	return out, err
}

func (t *faultTab) Diff(ctx context.Context) (string, error) {
	d, err := t.Tab.Diff(ctx)
	t.check(err)
	return d, err
}

func (t *faultTab) Target(ctx context.Context, a Action) (Target, error) {
	g, err := t.Tab.Target(ctx, a)
	t.check(err)
	return g, err
}

func (t *faultTab) Act(ctx context.Context, a Action) (Outcome, error) {
	o, err := t.Tab.Act(ctx, a)
	t.check(err)
	return o, err
}

func (t *faultTab) Screenshot(ctx context.Context) (Screenshot, error) {
	s, err := t.Tab.Screenshot(ctx)
	t.check(err)
	return s, err
}

func (t *faultTab) ReadPage(ctx context.Context) (string, error) {
	s, err := t.Tab.ReadPage(ctx)
	t.check(err)
	return s, err
}

// Unwrap returns the provider's tab the fault watcher decorates.
func (t *faultTab) Unwrap() Tab { return t.Tab }
