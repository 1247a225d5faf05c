package agents

import (
	"context"
	"fmt"
	"sync"
)

// watchedTab is an executor's tab seen by the exfiltration guard (and a
// TabGuard's tab): it notes what pages show and what is typed as the
// person's data, reads the tab's secrets before an action, and waits for
// the guard's checks of the requests an action caused, so a refusal is
// the action's verdict.
type watchedTab struct {
	Tab
	seen    *personal
	sites   func() []string // the run's sites, whose cookies are secrets
	guarded GuardedTab      // nil: the checks before actions only

	mu       sync.Mutex
	extra    []Secret      // the tab's secrets, read before the last action
	reading  chan struct{} // closed when the read of extra begun before the current action ends
	checking int           // guard checks in progress
	idle     chan struct{} // closed when checking drops to 0
	last     string        // the refusal during the current action
	byScript bool          // last was of a request a page's script sent
}

func (w *watchedTab) begin() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.checking == 0 {
		w.idle = make(chan struct{})
	}
	w.checking++
}

func (w *watchedTab) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.checking--; w.checking == 0 {
		close(w.idle)
	}
}

// settled waits for the guard's checks in progress, or ctx's end.
func (w *watchedTab) settled(ctx context.Context) {
	w.mu.Lock()
	idle := w.idle
	n := w.checking
	w.mu.Unlock()
	if n == 0 {
		return
	}
	select {
	case <-idle:
	case <-ctx.Done():
	}
}

// secrets returns the tab's secrets as read before the current action,
// waiting for that read while it is under way (or ctx's end).
func (w *watchedTab) secrets(ctx context.Context) []Secret {
	w.mu.Lock()
	reading := w.reading
	w.mu.Unlock()
	if reading != nil {
		select {
		case <-reading:
		case <-ctx.Done():
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.extra
}

// readSecrets starts reading the tab's cookies and masked values for an
// action that may send a request, and returns a func that waits for the
// read to end. The read runs beside the action rather than before it: a
// request the action causes is held until the read is done (secrets), and
// while it is held the page that sent it is still there to be read, a
// navigation included (its document stays until the response commits).
// The action itself does not wait. Best effort: a tab that cannot say
// still has what the run saw checked.
func (w *watchedTab) readSecrets(ctx context.Context, a Action) (wait func()) {
	if w.guarded == nil || a.Kind == ActScroll || a.Kind == ActNavigate || a.Kind == ActDialog {
		// A dialog blocks the page, so reading it would wait out the
		// call's deadline; what it held is what was read before the
		// action that raised the dialog, which is kept.
		return func() {}
	}
	w.allowSockets(ctx)
	done := make(chan struct{})
	w.mu.Lock()
	w.reading = done
	w.mu.Unlock()
	sites := w.sites()
	// Not the action's context: an action ended early must not leave the
	// next one's checks with a half-read page. Secrets bounds itself.
	rctx := context.WithoutCancel(ctx)
	go func() {
		defer close(done)
		ss, err := w.guarded.Secrets(rctx, sites)
		if err != nil {
			return
		}
		w.mu.Lock()
		w.extra = ss
		w.mu.Unlock()
	}()
	return func() { <-done }
}

func (w *watchedTab) refused(err error, script bool) {
	w.mu.Lock()
	w.last, w.byScript = err.Error(), script
	w.mu.Unlock()
}

// Observe notes the emails and names the page shows.
func (w *watchedTab) Observe(ctx context.Context) (Observation, error) {
	o, err := w.Tab.Observe(ctx)
	w.seen.saw(o.Text)
	return o, err
}

// Diff notes the emails and names that appeared.
func (w *watchedTab) Diff(ctx context.Context) (string, error) {
	d, err := w.Tab.Diff(ctx)
	w.seen.saw(d)
	return d, err
}

// ReadPage notes the emails and names in the page's text.
func (w *watchedTab) ReadPage(ctx context.Context) (string, error) {
	t, err := w.Tab.ReadPage(ctx)
	w.seen.saw(t)
	return t, err
}

// Act notes what the agent types, and waits for the guard's checks of the
// requests the action caused: a refusal is the action's verdict, so the
// model reads that it was stopped rather than that nothing happened.
func (w *watchedTab) Act(ctx context.Context, a Action) (Outcome, error) {
	o, _, err := w.act(ctx, a)
	return o, err
}

// act is Act, also returning why a request it caused was refused.
func (w *watchedTab) act(ctx context.Context, a Action) (Outcome, string, error) {
	if a.Text != "" && (a.Kind == ActType || a.Kind == ActTypeFocused) {
		sens := false
		if t, err := w.Tab.Target(ctx, a); err == nil {
			sens = t.Sensitive
		}
		w.seen.typed(a.Text, sens)
	}
	read := w.readSecrets(ctx, a)
	defer read()
	w.mu.Lock()
	w.last = ""
	w.mu.Unlock()
	// The tab answers an action that asked for a navigation with what
	// became of it (browser.Tab.awaitRequested), so the guard's check of
	// that navigation has ended by now; others may still run.
	o, err := w.Tab.Act(ctx, a)
	w.settled(ctx)
	w.mu.Lock()
	why, script := w.last, w.byScript
	w.mu.Unlock()
	switch {
	case err != nil || why == "":
	case script:
		// The action itself happened; the page's script, reacting to it,
		// tried to send something it may not.
		o.Summary += fmt.Sprintf("; meanwhile the page's script was refused: %s. It was not sent", why)
	default:
		o.Summary = fmt.Sprintf("%s: refused: %s. The page did not send it; do not try to send it another way", a, why)
	}
	return o, why, err
}

// Unwrap returns the watched tab, for the tools that look for what it
// offers beyond a Tab (downloads).
func (w *watchedTab) Unwrap() Tab { return w.Tab }
