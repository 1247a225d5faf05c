package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
)

// A page whose script never yields (a busy loop, a hung renderer) answers
// nothing on its main thread: every call in it would wait for the whole
// call timeout (30 s). So a call unanswered for busyAfter has the page
// probed with the cheapest evaluation there is; busyStrikes probes in a
// row without an answer within probeTimeout end the call as busy, in
// about 2.6 s. A navigation the guard holds (a person deciding) stops the
// page's frames as well, and so does a dialog or a password prompt held
// for the holder (block.go): probes then count as answered, since the page
// is waiting for someone, not busy. A document still loading is given
// busyLoading: building a big page in one long script, on a slow or busy
// machine, is a page at work, not a stuck one.
const (
	busyAfter    = time.Second
	probeTimeout = 800 * time.Millisecond
	busyStrikes  = 2
	busyLoading  = 10 * time.Second
)

// BusyError is a call the page could not answer because its script is
// busy. It wraps ErrUnresponsive.
type BusyError struct {
	After time.Duration // how long the call waited
}

// Error says what the page is doing and what can be done about it.
func (e *BusyError) Error() string {
	return fmt.Sprintf("%v: the page's script has been busy for %.1f s and does not answer; it may be stuck "+
		"(navigate, to reload or leave it, or back stops its script first)", ErrUnresponsive, e.After.Seconds())
}

// Unwrap matches ErrUnresponsive.
func (e *BusyError) Unwrap() error { return ErrUnresponsive }

// watchBusy ends the call of ctx with a BusyError once the page stops
// answering; it returns when ctx ends.
func (t *Tab) watchBusy(ctx context.Context, cancel context.CancelCauseFunc) {
	timer := time.NewTimer(busyAfter)
	defer timer.Stop()
	began := time.Now()
	for strikes := 0; ; {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		if t.held.Load() > 0 || t.blocked() != nil || t.answers(ctx) {
			strikes = 0
			timer.Reset(busyAfter) // it answers: look again in a while
			continue
		}
		if strikes++; strikes >= busyStrikes && (!t.Info().Loading || time.Since(began) >= busyLoading) {
			t.busy.Store(true)
			cancel(&BusyError{After: time.Since(began)})
			return
		}
		timer.Reset(0) // unanswered: ask again at once
	}
}

// answers reports whether the page's main thread answers an evaluation
// within probeTimeout. An error that is not a timeout is an answer too
// (no execution context yet, say): the renderer is not stuck.
func (t *Tab) answers(ctx context.Context) bool {
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	_, err := cdp.Call(pctx, t.target(), runtime.Evaluate, runtime.EvaluateParams{Expression: "0", Silent: new(true)})
	return !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil
}

// unstick stops the script of a page found busy and still busy, so a
// navigation away from it or a reload can start. A page that answers is
// left alone: Runtime.terminateExecution would end its next script, one
// of ours, instead.
func (t *Tab) unstick(ctx context.Context) {
	if !t.busy.Swap(false) || t.answers(ctx) {
		return
	}
	if _, err := cdp.Call(ctx, t.target(), runtime.TerminateExecution, cdp.Empty{}); err != nil {
		t.b.opts.Logf("tab %s: stop a busy script: %v", t.id, err)
	}
}

// ErrPageChanged means the page was replaced while a call read or acted
// in it: it navigated, perhaps in a loop of redirects. Looking again reads
// whatever it is now.
var ErrPageChanged = errors.New("the page changed while it was being read (it navigated, perhaps in a loop of redirects); look at it again")

// changedMarks are what Chromium says when a call's document went away
// under it: a protocol error a model cannot read, said as ErrPageChanged.
var changedMarks = []string{
	"Cannot find context with specified id",
	"Execution context was destroyed",
	"Cannot find default execution context",
	"Inspected target navigated or closed",
	"Node with given id does not belong to the document",
	"No node with given id found",
	"Could not find node with given id",
}

// inWords turns a raw protocol error (a message and a -32000 code) into
// the package's words, keeping the original for errors.As.
func inWords(err error) error {
	var pe *cdproto.Error
	if !errors.As(err, &pe) {
		return err
	}
	for _, m := range changedMarks {
		if strings.Contains(pe.Message, m) {
			return fmt.Errorf("%w (%s)", ErrPageChanged, pe.Message)
		}
	}
	return fmt.Errorf("the browser refused the call: %s", pe.Message)
}
