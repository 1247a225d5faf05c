package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// A person browsing in a tab's live view needs what Chrome draws around a
// page and headless Chromium does not: the popups of native selects and of
// date, time, colour and datalist inputs (drawn in their own widgets,
// which no screencast shows), the cursor shape, the context menu, the
// scrollbars. ServePerson arms a tab for that: personview.js, in an
// isolated world of every frame, prevents the unseen popups and reports,
// through a binding the page cannot see, what the view must draw instead.
// Agents' tabs never carry it: they choose with the select action.

//go:embed personview.js
var personViewJS string

// The isolated world and binding personview.js lives in and speaks through.
const (
	personWorld   = "vroom-person"
	personBinding = "__vroomPersonSend"
	// personReady is personview.js's word that it runs in the top
	// document, whose world answers the calls about the focus.
	personReady = "ready"
)

// PersonEventKind says what a PersonEvent is.
type PersonEventKind string

// What the page in a person's tab asks the view to do.
const (
	// PersonPicker: draw Picker (a select's list, a date or colour
	// picker, a datalist's suggestions) under its element; the same id
	// again is the same popup with its options as they are now.
	PersonPicker PersonEventKind = "picker"
	// PersonPickerClosed: the popup PickerID no longer applies (its
	// element lost focus, a datalist has no suggestion left).
	PersonPickerClosed PersonEventKind = "picker-closed"
	// PersonCursor: the pointer is over something asking for Cursor, a
	// CSS cursor keyword.
	PersonCursor PersonEventKind = "cursor"
	// PersonMenu: the person right-clicked and the page did not prevent
	// the context menu: draw Menu.
	PersonMenu PersonEventKind = "menu"
	// PersonCopied: a copy or cut in the page took Text, which belongs on
	// the desktop's clipboard.
	PersonCopied PersonEventKind = "copied"
)

// PickerKind is the kind of popup a page's element asks for.
type PickerKind string

// The popups headless Chromium does not draw.
const (
	PickerSelect        PickerKind = "select"
	PickerDate          PickerKind = "date"
	PickerTime          PickerKind = "time"
	PickerDateTimeLocal PickerKind = "datetime-local"
	PickerMonth         PickerKind = "month"
	PickerWeek          PickerKind = "week"
	PickerColor         PickerKind = "color"
	PickerDatalist      PickerKind = "datalist"
)

// Rect is a box in the tab's viewport, in CSS pixels.
type Rect struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// PickerOption is one choice of a select or a datalist. A select's Value
// is the option's index, which is what Choose takes.
type PickerOption struct {
	Label    string `json:"label"`
	Value    string `json:"value"`
	Group    string `json:"group,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
	Selected bool   `json:"selected,omitempty"`
}

// Picker is a popup to draw for the person: its element's box, its
// options (select, datalist) or value and bounds (the others).
type Picker struct {
	ID      int            `json:"id"`
	Type    PickerKind     `json:"type"`
	Rect    Rect           `json:"rect"`
	Options []PickerOption `json:"options,omitempty"`
	Value   string         `json:"value"`
	Min     string         `json:"min,omitempty"`
	Max     string         `json:"max,omitempty"`
	Step    string         `json:"step,omitempty"`
}

// ContextMenu is what a right-click was on: a link, a selection, a field
// that takes text; X and Y are where, in the viewport.
type ContextMenu struct {
	X         float64 `json:"x"`
	Y         float64 `json:"y"`
	Link      string  `json:"link,omitempty"`
	LinkText  string  `json:"linkText,omitempty"`
	Selection string  `json:"selection,omitempty"`
	Editable  bool    `json:"editable,omitempty"`
}

// PersonEvent is one thing the page in a person's tab asks of the view.
type PersonEvent struct {
	Kind     PersonEventKind `json:"kind"`
	Picker   *Picker         `json:"picker,omitempty"`
	PickerID int             `json:"pickerId,omitempty"`
	Cursor   string          `json:"cursor,omitempty"`
	Menu     *ContextMenu    `json:"menu,omitempty"`
	Text     string          `json:"text,omitempty"`
}

// personView is a tab's state while a person's view serves it.
type personView struct {
	mu        sync.Mutex
	listening bool
	gen       int
	out       chan PersonEvent
	script    page.ScriptIdentifier
	top       runtime.ExecutionContextID
	contexts  map[personWorldAt]bool
	pickers   map[int]pickerAt
	next      int
	// frames are the out-of-process frames' sessions served, with their
	// script; worlds the frame each of their worlds is the document of.
	frames map[*chromedp.Target]page.ScriptIdentifier
	worlds map[personWorldAt]cdp.FrameID
}

// personWorldAt is one document's world of personview.js: its session
// (the tab's, or an out-of-process frame's) and its context there.
type personWorldAt struct {
	sess *chromedp.Target
	ctx  runtime.ExecutionContextID
}

// pickerAt is where a popup's element lives: its document's world and the
// id personview.js gave it there.
type pickerAt struct {
	personWorldAt
	local int
}

// ServePerson arms the tab for a person driving it from a live view, until
// ctx ends: its pages' popups are drawn by the view from the events on
// the returned channel, and its scrollbars show. A newer ServePerson on
// the same tab takes over from an older one, whose channel closes. Events
// are dropped, never queued, while the reader is behind.
func (t *Tab) ServePerson(ctx context.Context) (<-chan PersonEvent, error) {
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("serve person: %w", err)
	}
	defer cancel()
	pv := &t.pv
	pv.mu.Lock()
	if !pv.listening {
		if err := chromedp.Listen(t.ctx, t.onPersonEvent); err != nil {
			pv.mu.Unlock()
			return nil, fmt.Errorf("serve person: %w", err)
		}
		pv.listening = true
	}
	if pv.out != nil {
		close(pv.out)
	}
	pv.gen++
	gen := pv.gen
	out := make(chan PersonEvent, 32)
	pv.out = out
	armed := pv.script != ""
	pv.mu.Unlock()
	if !armed {
		if err := t.armPerson(cctx); err != nil {
			t.endPerson(gen)
			return nil, fmt.Errorf("serve person: %w", t.fail(cctx, err))
		}
		t.armPersonFrames(cctx)
	}
	go func() {
		select {
		case <-ctx.Done():
		case <-t.dead.Done():
		}
		t.endPerson(gen)
	}()
	return out, nil
}

// armPerson installs personview.js in every frame, now and in each new
// document, and shows the scrollbars the browser hides for agents.
func (t *Tab) armPerson(ctx context.Context) error {
	tg := t.target()
	if _, err := cdp.Call(ctx, tg, runtime.AddBinding, runtime.AddBindingParams{Name: personBinding, ExecutionContextName: personWorld}); err != nil {
		return fmt.Errorf("add binding: %w", err)
	}
	// Before the script, which remakes the scrollbars of the document it
	// starts in.
	if err := t.showScrollbars(ctx, true, 0); err != nil {
		return fmt.Errorf("show scrollbars: %w", err)
	}
	script, err := addPersonScript(ctx, tg)
	if err != nil {
		return err
	}
	t.pv.mu.Lock()
	t.pv.script = script
	t.pv.mu.Unlock()
	return nil
}

// showScrollbars shows or hides the page's scrollbars. Chromium applies
// the setting to scrollbars as they are made: the top document's are made
// again (personview.js's rescroll) in the world top, when there is one.
func (t *Tab) showScrollbars(ctx context.Context, show bool, top runtime.ExecutionContextID) error {
	if _, err := cdp.Call(ctx, t.target(), emulation.SetScrollbarsHidden, emulation.SetScrollbarsHiddenParams{Hidden: !show}); err != nil {
		return err
	}
	// Best effort: a document whose script has not run yet makes its
	// scrollbars with the new setting.
	if top != 0 {
		_ = t.personCall(ctx, top, nil, "rescroll")
	}
	return nil
}

// endPerson ends the serving generation gen, if still current: the
// script stops in every document it runs in and is not added to new ones,
// and the scrollbars hide again.
func (t *Tab) endPerson(gen int) {
	pv := &t.pv
	pv.mu.Lock()
	if pv.gen != gen {
		pv.mu.Unlock()
		return
	}
	if pv.out != nil {
		close(pv.out)
		pv.out = nil
	}
	script, contexts, top, frames := pv.script, pv.contexts, pv.top, pv.frames
	pv.script, pv.contexts, pv.pickers, pv.top, pv.frames, pv.worlds = "", nil, nil, 0, nil, nil
	pv.mu.Unlock()
	if script == "" || t.dead.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(t.dead, t.b.opts.CallTimeout)
	defer cancel()
	tg := t.target()
	// Best effort each: a tab closing, or a document gone, needs no undo.
	if _, err := cdp.Call(ctx, tg, page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: script}); err != nil && t.dead.Err() == nil {
		t.b.opts.Logf("tab %s: stop serving the person: %v", t.id, err)
	}
	for s, script := range frames {
		_, _ = cdp.Call(ctx, s, page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: script})
	}
	for w := range contexts {
		_, _ = cdp.Call(ctx, w.sess, runtime.Evaluate, runtime.EvaluateParams{Expression: `globalThis.__vroomPerson?.off()`, ContextID: w.ctx, Silent: new(true)})
	}
	if err := t.showScrollbars(ctx, false, top); err != nil && t.dead.Err() == nil {
		t.b.opts.Logf("tab %s: hide the scrollbars again: %v", t.id, err)
	}
}

// onPersonEvent takes personview.js's messages in the tab's own session,
// in the tab's read loop.
func (t *Tab) onPersonEvent(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventBindingCalled:
		if ev.Name == personBinding {
			t.personBinding(t.target(), ev)
		}
	case *runtime.EventExecutionContextCreated:
		t.personWorldMade(t.target(), ev)
	}
}

// personBinding takes one message of personview.js in session sess, in
// that session's read loop.
func (t *Tab) personBinding(sess *chromedp.Target, b *runtime.EventBindingCalled) {
	var m struct {
		PersonEvent
		ID int `json:"id"`
	}
	// Whether a box or point is in a frame's own viewport (personframes.go).
	var in struct {
		Picker *struct {
			Rect struct {
				Frame bool `json:"frame"`
			} `json:"rect"`
		} `json:"picker"`
		Menu *struct {
			Frame bool `json:"frame"`
		} `json:"menu"`
	}
	if json.Unmarshal([]byte(b.Payload), &m) != nil || json.Unmarshal([]byte(b.Payload), &in) != nil {
		return
	}
	at := personWorldAt{sess: sess, ctx: b.ExecutionContextID}
	pv := &t.pv
	pv.mu.Lock()
	defer pv.mu.Unlock()
	if pv.out == nil {
		return
	}
	if pv.contexts == nil {
		pv.contexts, pv.pickers = map[personWorldAt]bool{}, map[int]pickerAt{}
	}
	pv.contexts[at] = true
	e := m.PersonEvent
	switch e.Kind {
	case personReady:
		if sess == t.target() {
			pv.top = b.ExecutionContextID
		}
		return
	case PersonPicker:
		if e.Picker == nil {
			return
		}
		e.Picker.ID = pv.pickerID(at, e.Picker.ID)
	case PersonPickerClosed:
		e.PickerID = pv.pickerID(at, m.ID)
		delete(pv.pickers, e.PickerID)
	case PersonCursor, PersonMenu, PersonCopied:
	default:
		return
	}
	// What another holder does in the tab (an agent given it) is not the
	// person's: no popup for them, nothing on their clipboard.
	if t.Info().Owner != "" {
		return
	}
	if (in.Picker != nil && in.Picker.Rect.Frame) || (in.Menu != nil && in.Menu.Frame) {
		// Where the frame is takes calls, which this read loop must not
		// make.
		go t.placeInFrame(at, pv.gen, e)
		return
	}
	pv.sendLocked(e)
}

// sendLocked hands e to the view, under pv.mu; dropped while the reader
// is behind.
func (pv *personView) sendLocked(e PersonEvent) {
	select {
	case pv.out <- e:
	default:
	}
}

// pickerID is the tab-wide id of the popup local of the document in w,
// under pv.mu.
func (pv *personView) pickerID(w personWorldAt, local int) int {
	for id, at := range pv.pickers {
		if at.personWorldAt == w && at.local == local {
			return id
		}
	}
	pv.next++
	pv.pickers[pv.next] = pickerAt{personWorldAt: w, local: local}
	return pv.next
}

// ErrNoPicker is a choice for a popup that is not open (any more).
var ErrNoPicker = errors.New("no such picker open")

// Choose makes the person's choice in the open popup id: for a select the
// option's Value (its index), for the others the input's new value in
// its HTML form (2026-01-31, 13:45, #ff8800). The page gets input and
// change, as from a choice in Chrome's own popup.
func (t *Tab) Choose(ctx context.Context, id int, value string) error {
	return t.pickerCall(ctx, id, "choose", value)
}

// Dismiss closes popup id with no choice; the focus stays on its element.
func (t *Tab) Dismiss(ctx context.Context, id int) error {
	return t.pickerCall(ctx, id, "dismiss", "")
}

func (t *Tab) pickerCall(ctx context.Context, id int, fn, value string) error {
	pv := &t.pv
	pv.mu.Lock()
	at, ok := pv.pickers[id]
	delete(pv.pickers, id)
	pv.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s picker %d: %w", fn, id, ErrNoPicker)
	}
	var out string
	if err := t.personCallOn(ctx, at.sess, at.ctx, &out, fn, at.local, value); err != nil {
		return fmt.Errorf("%s picker %d: %w", fn, id, err)
	}
	if out != "" {
		return fmt.Errorf("%s picker %d: %w: %s", fn, id, ErrNoPicker, out)
	}
	return nil
}

// personCall calls __vroomPerson.fn(args...) in the world ctxID of the
// tab's own session, as a person's gesture, and decodes its result into
// out.
func (t *Tab) personCall(ctx context.Context, ctxID runtime.ExecutionContextID, out any, fn string, args ...any) error {
	return t.personCallOn(ctx, t.target(), ctxID, out, fn, args...)
}

// personCallOn is personCall in the world ctxID of session sess.
func (t *Tab) personCallOn(ctx context.Context, sess *chromedp.Target, ctxID runtime.ExecutionContextID, out any, fn string, args ...any) error {
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	expr, err := callExpr(fn, args...)
	if err != nil {
		return err
	}
	expr = strings.Replace(expr, "__vroom.", "__vroomPerson.", 1)
	res, err := cdp.Call(cctx, sess, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ContextID: ctxID, ReturnByValue: new(true), UserGesture: new(true), AwaitPromise: new(true),
	})
	if err != nil {
		return t.fail(cctx, err)
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("%s: %s", fn, res.ExceptionDetails.Text)
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}

// topPerson is the world of personview.js in the top document, for the
// calls about the focused element.
func (t *Tab) topPerson() (runtime.ExecutionContextID, error) {
	t.pv.mu.Lock()
	defer t.pv.mu.Unlock()
	if t.pv.top == 0 {
		return 0, errors.New("the tab is not served to a person (ServePerson)")
	}
	return t.pv.top, nil
}
