package agents

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// Bounds on a model server that goes quiet, and on how long it may ask to
// be left alone, so a stalled or throttling server is a fault said within
// seconds rather than a silent wait of minutes.
const (
	// defaultFirstByte bounds the wait for a reply's first byte.
	defaultFirstByte = 30 * time.Second
	// defaultIdle bounds the silence inside a streamed reply.
	defaultIdle = 30 * time.Second
	// defaultMaxRetryAfter is the longest Retry-After obeyed; a server
	// asking for more has refused the call.
	defaultMaxRetryAfter = 60 * time.Second
	// defaultSlowNotice is how long a wait goes unannounced: a model call
	// or a retry's wait longer than this is told to the person.
	defaultSlowNotice = 5 * time.Second
	// stallRetries is how many times a stalled attempt is retried: a
	// server that stopped answering rarely answers the next request.
	stallRetries = 1
)

var (
	// ErrModelStalled means the model server stopped answering: no first
	// byte, or a streamed reply that went quiet, within its bound.
	ErrModelStalled = errors.New("the model server stopped answering")
	// ErrModelBusy means the model server asked to be retried later than
	// Vroom waits (a long Retry-After): it refused the call. It ends the
	// whole run, since every agent shares the server and the key.
	ErrModelBusy = errors.New("the model server refused to answer for now")
)

// The phases of a reply a server can stall in.
const (
	phaseFirst = "first byte of a reply"
	phaseNext  = "next part of the reply"
)

// StallError is an attempt the server left unanswered for longer than
// its bound allows.
type StallError struct {
	Phase string        // "the first byte" or "the next part of the reply"
	After time.Duration // the bound that ran out
}

// Error says what the server did not send, and for how long.
func (e *StallError) Error() string {
	return fmt.Sprintf("%v: no %s within %s", ErrModelStalled, e.Phase, roughly(e.After))
}

// Unwrap matches ErrModelStalled.
func (e *StallError) Unwrap() error { return ErrModelStalled }

// ModelWait is a model call taking longer than a few seconds, told to
// the person while it lasts: the server is slow, or a retry is waiting.
type ModelWait struct {
	Agent   string  `json:"agent"`
	Role    Role    `json:"role"`
	Reason  string  `json:"reason"`            // what is being waited for, and why
	WaitS   float64 `json:"wait_s,omitempty"`  // how long this wait lasts, when known
	Attempt int     `json:"attempt,omitempty"` // the attempt that follows the wait (2 is the first retry)
	Retries int     `json:"retries,omitempty"` // how many retries the call may make
	Done    bool    `json:"done,omitempty"`    // the call ended: the notice can go
}

// String is the notice as printed: "model server slow: waiting 20 s for
// planner, retry 2/3 (HTTP 429)".
func (w ModelWait) String() string {
	if w.Done && w.Reason != "" {
		return fmt.Sprintf("model server gave up on %s (%s)", w.Agent, w.Reason)
	}
	if w.Done {
		return fmt.Sprintf("model server answered %s", w.Agent)
	}
	s := "model server slow: " + w.Reason
	if w.WaitS > 0 {
		s = fmt.Sprintf("model server slow: waiting %s for %s, retry %d/%d (%s)",
			roughly(time.Duration(w.WaitS*float64(time.Second))), w.Agent, w.Attempt-1, w.Retries, w.Reason)
	}
	return s
}

// watchdog cancels an attempt whose server is silent for longer than the
// bound it is armed with; the attempt's context then ends with a
// StallError as its cause. It runs on the wall clock, as CallTimeout
// does: it measures a real server's silence, not the runtime's time.
type watchdog struct {
	clock  Clock
	cancel context.CancelCauseFunc
	t      Timer
}

// newWatchdog returns ctx with a watchdog over it, and the release to call
// when the attempt ends.
func newWatchdog(ctx context.Context) (context.Context, *watchdog, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{clock: wallClock(), cancel: cancel}
	return ctx, w, func() { w.disarm(); cancel(nil) }
}

// arm restarts the bound: the server has until d from now to send more.
func (w *watchdog) arm(d time.Duration, phase string) {
	w.disarm()
	if d > 0 {
		w.t = w.clock.AfterFunc(d, func() { w.cancel(&StallError{Phase: phase, After: d}) })
	}
}

func (w *watchdog) disarm() {
	if w.t != nil {
		w.t.Stop()
	}
}

// stalled returns the watchdog's cause when it ended ctx, else err.
func stalled(ctx context.Context, err error) error {
	var se *StallError
	if errors.As(context.Cause(ctx), &se) {
		return se
	}
	return err
}

// notifier tells the person about a call's long waits: once a call has
// gone unanswered for slowNotice, and before each long retry wait; and
// that the call ended, when anything was told.
type notifier struct {
	m      *Model
	c      modelCall
	told   atomic.Bool
	notify func(ModelWait)
}

func (m *Model) notifier(c modelCall) *notifier {
	return &notifier{m: m, c: c, notify: c.Progress}
}

// attempt starts watching one attempt; its stop is called when it ends.
func (n *notifier) attempt(attempt int) (stop func()) {
	if n.notify == nil {
		return func() {}
	}
	w := ModelWait{Agent: n.c.Agent, Role: n.c.Role, Attempt: attempt,
		Reason: fmt.Sprintf("no answer for %s yet after %s", n.c.Agent, roughly(n.m.cfg.SlowNotice))}
	t := time.AfterFunc(n.m.cfg.SlowNotice, func() { n.told.Store(true); n.notify(w) })
	return func() { t.Stop() }
}

// retrying tells of a retry's wait when it is long enough to notice.
func (n *notifier) retrying(wait time.Duration, attempt int, cause error) {
	if n.notify == nil || wait < n.m.cfg.SlowNotice {
		return
	}
	n.told.Store(true)
	n.notify(ModelWait{Agent: n.c.Agent, Role: n.c.Role, Reason: briefCause(cause), WaitS: wait.Seconds(),
		Attempt: attempt, Retries: n.m.cfg.MaxRetries})
}

// done clears what was told.
func (n *notifier) done(err error) {
	if n.notify != nil && n.told.Load() {
		w := ModelWait{Agent: n.c.Agent, Role: n.c.Role, Done: true}
		if err != nil {
			w.Reason = briefCause(err)
		}
		n.notify(w)
	}
}

// briefCause names an attempt's failure in a few words.
func briefCause(err error) string {
	var se *StallError
	if errors.As(err, &se) {
		return fmt.Sprintf("no answer in %s", roughly(se.After))
	}
	if st := httpStatus(err); st != 0 {
		return fmt.Sprintf("HTTP %d", st)
	}
	return clip(err.Error(), 80)
}

// roughly renders d as a person reads a wait: "20 s", "0.2 s".
func roughly(d time.Duration) string {
	if d >= 10*time.Second {
		return fmt.Sprintf("%.0f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
