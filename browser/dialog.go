package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// While a JavaScript dialog is open the page's renderer is blocked inside
// alert(), confirm() or prompt(): it evaluates nothing, draws nothing and
// acknowledges no input, so every call into the page would wait for its
// deadline. A dialog the tab's policy answers at once (an alert) costs the
// call in flight only the round trip; one held for the tab's holder
// interrupts the calls in flight, which return at once — an action with
// the dialog in its Result, anything else with a *DialogError — and the
// page is left alone until the holder answers.

// DialogKind names a JavaScript dialog.
type DialogKind string

// Dialog kinds, as Chromium names them.
const (
	DialogAlert   DialogKind = "alert"
	DialogConfirm DialogKind = "confirm"
	DialogPrompt  DialogKind = "prompt"
	// DialogBeforeUnload is "Leave site?": the page asked to be asked
	// before it is left; accepting leaves.
	DialogBeforeUnload DialogKind = "beforeunload"
)

// DialogBy says who answered a dialog.
type DialogBy string

// Who answers dialogs.
const (
	DialogByPolicy  DialogBy = "policy"  // the tab's policy, as it opened
	DialogByHolder  DialogBy = "holder"  // whoever holds the tab, through AnswerDialog
	DialogByTimeout DialogBy = "timeout" // the policy's answer, after nobody answered in time
	// DialogByNavigation: the tab navigated away, which closes a dialog
	// unanswered (an alert, a confirm or a prompt; never "Leave site?").
	DialogByNavigation DialogBy = "navigation"
)

// Dialog is a JavaScript dialog a page opened.
type Dialog struct {
	// ID numbers the tab's dialogs, so an opened and a closed event pair up.
	ID      int        `json:"id"`
	Kind    DialogKind `json:"kind"`
	Message string     `json:"message"`
	// Default is a prompt's default text.
	Default string `json:"default,omitempty"`
	// URL is the page that opened it.
	URL string `json:"url"`
	// Held marks a dialog left open for the tab's holder to answer.
	Held bool `json:"held,omitempty"`
	// Note says why the policy's answer was not given: a page that keeps
	// opening dialogs has the next one held, so a loop of alerts ends.
	Note string `json:"note,omitempty"`
	// Answer and By are set once the dialog has closed.
	Answer *DialogAnswer `json:"answer,omitempty"`
	By     DialogBy      `json:"by,omitempty"`
}

// DialogAnswer answers a dialog: Accept is OK (or "Leave"), otherwise
// Cancel; Text is what a prompt returns.
type DialogAnswer struct {
	Accept bool   `json:"accept"`
	Text   string `json:"text,omitempty"`
}

// String describes the dialog as a model or a person reads it.
func (d Dialog) String() string {
	var sb strings.Builder
	switch d.Kind {
	case DialogBeforeUnload:
		sb.WriteString(`a "Leave site?" dialog`)
	case DialogAlert:
		fmt.Fprintf(&sb, "an alert %q", clipText(d.Message, 200))
	default:
		fmt.Fprintf(&sb, "a %s dialog %q", d.Kind, clipText(d.Message, 200))
	}
	if d.Default != "" {
		fmt.Fprintf(&sb, " (default %q)", clipText(d.Default, 80))
	}
	switch {
	case d.Answer != nil && d.By == DialogByNavigation:
		sb.WriteString(" was closed by leaving the page")
	case d.Answer != nil && d.Answer.Accept && d.Kind == DialogPrompt:
		fmt.Fprintf(&sb, " was answered %q", clipText(d.Answer.Text, 80))
	case d.Answer != nil && d.Answer.Accept:
		sb.WriteString(" was accepted")
	case d.Answer != nil:
		sb.WriteString(" was dismissed")
	default:
		sb.WriteString(" is open")
	}
	if d.Note != "" {
		sb.WriteString(" (" + d.Note + ")")
	}
	return sb.String()
}

// DialogPlan is what becomes of a dialog as it opens.
type DialogPlan struct {
	// Hold leaves the dialog open for the tab's holder; otherwise it gets
	// Answer at once.
	Hold bool
	// Answer is the policy's answer: given at once, or, for a held dialog
	// with a Timeout, when nobody answered within it.
	Answer  DialogAnswer
	Timeout time.Duration
}

// DialogPolicy decides what becomes of each JavaScript dialog as it opens.
// It runs on the tab's event loop and must return at once.
type DialogPolicy func(Dialog) DialogPlan

// DefaultDialogPolicy accepts an alert at once (it asks nothing; its
// message is reported) and holds every other dialog for the tab's holder.
func DefaultDialogPolicy(d Dialog) DialogPlan {
	if d.Kind == DialogAlert {
		return DialogPlan{Answer: DialogAnswer{Accept: true}}
	}
	return DialogPlan{Hold: true}
}

// HoldDialogs holds every dialog, alerts too, for the holder: a person
// reads an alert before it goes, as in Chrome.
func HoldDialogs(Dialog) DialogPlan { return DialogPlan{Hold: true} }

// A page that opens more than maxBurst dialogs, each within burstGap of
// the last one closing, has the next held whatever the policy says: a
// loop of alerts answered automatically would never end.
const (
	maxBurst = 5
	burstGap = time.Second
)

// dialogs is a tab's JavaScript dialog state. Its handlers run in the CDP
// read loop: they change state, emit events and start goroutines, never
// calling CDP themselves.
type dialogs struct {
	mu     sync.Mutex
	policy DialogPolicy
	next   int
	open   *openDialog
	// hold ends, with the held dialog's *DialogError as its cause, while a
	// dialog is held; a new one replaces it when that dialog closes.
	hold   context.Context
	unhold context.CancelCauseFunc
	burst  int
	last   time.Time // when the last dialog closed
}

// openDialog is the dialog on screen.
type openDialog struct {
	d      Dialog
	sess   *chromedp.Target // the session whose page opened it
	closed chan struct{}
	timer  *time.Timer
	by     DialogBy
	// base and w are the state of the page before the action that raised
	// the dialog, and its world: answering it is judged against them.
	base *fingerprint
	w    *world
}

func (ds *dialogs) init() {
	ds.hold, ds.unhold = context.WithCancelCause(context.Background())
}

// held returns the context that ends while a dialog is held.
func (ds *dialogs) held() context.Context {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return ds.hold
}

// current returns the dialog on screen, or nil.
func (ds *dialogs) current() *openDialog {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return ds.open
}

// Dialog returns the JavaScript dialog open on the tab now, if any.
func (t *Tab) Dialog() (Dialog, bool) {
	od := t.dlg.current()
	if od == nil {
		return Dialog{}, false
	}
	t.dlg.mu.Lock()
	defer t.dlg.mu.Unlock()
	return od.d, true
}

// SetDialogPolicy sets what becomes of the tab's dialogs as they open
// (nil: Options.Dialogs, else DefaultDialogPolicy). It is for the tab's
// holder: it checks the lease. A popup starts with its opener's policy.
func (t *Tab) SetDialogPolicy(ctx context.Context, p DialogPolicy) error {
	_, cancel, err := t.beginTab(ctx)
	if err != nil {
		return fmt.Errorf("dialog policy %s: %w", t.id, err)
	}
	cancel()
	t.dlg.mu.Lock()
	t.dlg.policy = p
	t.dlg.mu.Unlock()
	return nil
}

// AnswerDialog answers the open dialog and returns, as any action does,
// what became of the page: a confirm accepted that deleted a row, a
// "Leave site?" accepted that navigated. ErrNoDialog when none is open.
func (t *Tab) AnswerDialog(ctx context.Context, ans DialogAnswer) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActDialog, Accept: ans.Accept, Text: ans.Text})
}

// policyFor is the policy that decides the tab's next dialog.
func (t *Tab) policyFor() DialogPolicy {
	t.dlg.mu.Lock()
	p := t.dlg.policy
	t.dlg.mu.Unlock()
	switch {
	case p != nil:
		return p
	case t.b.opts.Dialogs != nil:
		return t.b.opts.Dialogs
	}
	return DefaultDialogPolicy
}

// dialogOpening runs, in the read loop of sess, when its page opens a
// dialog: the policy decides, a burst overrides it, and a held dialog
// interrupts the tab's calls in flight.
func (t *Tab) dialogOpening(sess *chromedp.Target, ev *page.EventJavascriptDialogOpening) {
	d := Dialog{Kind: DialogKind(ev.Type), Message: ev.Message, Default: ev.DefaultPrompt, URL: ev.URL}
	plan := t.policyFor()(d)
	ds := &t.dlg
	ds.mu.Lock()
	ds.next++
	d.ID = ds.next
	if time.Since(ds.last) < burstGap {
		ds.burst++
	} else {
		ds.burst = 1
	}
	if !plan.Hold && ds.burst > maxBurst {
		plan = DialogPlan{Hold: true}
		d.Note = fmt.Sprintf("the page opened %d dialogs in a row", ds.burst)
	}
	d.Held = plan.Hold
	od := &openDialog{d: d, sess: sess, closed: make(chan struct{})}
	ds.open = od
	if plan.Hold {
		ds.unhold(&DialogError{Dialog: d})
		if plan.Timeout > 0 {
			od.timer = time.AfterFunc(plan.Timeout, func() { t.autoAnswer(od, plan.Answer, DialogByTimeout) })
		}
	}
	ds.mu.Unlock()
	t.b.emit(Event{Kind: DialogOpened, Tab: t.Info(), Dialog: &d})
	if !plan.Hold {
		go t.autoAnswer(od, plan.Answer, DialogByPolicy)
	}
}

// dialogClosed runs in the read loop when the dialog on screen closes,
// answered or closed by a navigation.
func (t *Tab) dialogClosed(ev *page.EventJavascriptDialogClosed) {
	ds := &t.dlg
	ds.mu.Lock()
	od := ds.open
	if od == nil {
		ds.mu.Unlock()
		return
	}
	ds.open = nil
	ds.last = time.Now()
	if od.d.Held {
		ds.hold, ds.unhold = context.WithCancelCause(context.Background())
	}
	if od.timer != nil {
		od.timer.Stop()
	}
	d := od.d
	d.Held = false
	d.Answer = &DialogAnswer{Accept: ev.Result, Text: ev.UserInput}
	d.By = od.by
	if d.By == "" {
		d.By = DialogByNavigation
	}
	ds.mu.Unlock()
	close(od.closed)
	if d.By != DialogByHolder {
		t.notes.add(pageNote{dialog: &d})
	}
	t.b.emit(Event{Kind: DialogClosed, Tab: t.Info(), Dialog: &d})
}

// autoAnswer gives a dialog the policy's answer. Nobody waits on it: a
// failure (the tab closed, the dialog closed by a navigation first) is
// logged.
func (t *Tab) autoAnswer(od *openDialog, ans DialogAnswer, by DialogBy) {
	ctx, cancel := context.WithTimeout(t.dead, t.b.opts.CallTimeout)
	defer cancel()
	if err := t.answerOpen(ctx, od, ans, by); err != nil && !errors.Is(err, ErrNoDialog) && context.Cause(t.dead) == nil {
		t.b.opts.Logf("tab %s: answer %s: %v", t.id, od.d, err)
	}
}

// answerOpen answers od and waits until it has closed.
func (t *Tab) answerOpen(ctx context.Context, od *openDialog, ans DialogAnswer, by DialogBy) error {
	t.dlg.mu.Lock()
	if t.dlg.open != od {
		t.dlg.mu.Unlock()
		return ErrNoDialog
	}
	od.by = by
	t.dlg.mu.Unlock()
	_, err := cdp.Call(ctx, od.sess, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: ans.Accept, PromptText: ans.Text})
	if err != nil {
		if strings.Contains(err.Error(), "No dialog is showing") {
			return ErrNoDialog
		}
		return err
	}
	select {
	case <-od.closed:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
