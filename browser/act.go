package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp/kb"
)

// MaxTypeLength is the most text, in bytes, one type action accepts.
const MaxTypeLength = 64 << 10

// Action kinds.
const (
	ActClick       = "click"
	ActType        = "type"
	ActClear       = "clear"
	ActSelect      = "select"
	ActPress       = "press"
	ActScroll      = "scroll"
	ActHover       = "hover"
	ActNavigate    = "navigate"
	ActBack        = "back"
	ActForward     = "forward"
	ActReload      = "reload"
	ActClickAt     = "click_at"
	ActTypeFocused = "type_focused"
	ActUpload      = "upload"
	ActWait        = "wait"
)

// Action is one step an agent asks for. Which fields matter depends on Kind.
type Action struct {
	Kind      string   `json:"action"`
	Ref       string   `json:"ref,omitempty"`
	Text      string   `json:"text,omitempty"`
	Submit    bool     `json:"submit,omitempty"`
	Option    string   `json:"option,omitempty"`
	Key       string   `json:"key,omitempty"`       // press: "Enter", "Control+A", "Shift+Tab"
	Direction string   `json:"direction,omitempty"` // scroll: up, down, left, right
	Amount    float64  `json:"amount,omitempty"`    // scroll: CSS pixels (default most of a screen)
	X         float64  `json:"x,omitempty"`         // click_at: screenshot pixels
	Y         float64  `json:"y,omitempty"`
	URL       string   `json:"url,omitempty"`
	Files     []string `json:"files,omitempty"`
	// Until is a condition to wait for after acting; in a batch it is also
	// the check that must hold before the next step runs.
	Until *Condition `json:"until,omitempty"`
}

// Condition is a page state to wait for.
type Condition struct {
	Text    string  `json:"text,omitempty"` // visible text contains
	URL     string  `json:"url,omitempty"`  // URL contains
	Ref     string  `json:"ref,omitempty"`
	Value   *string `json:"value,omitempty"`
	Checked *bool   `json:"checked,omitempty"`
	Gone    bool    `json:"gone,omitempty"` // the ref's element is gone
}

// Result is the verdict on one action: what was done and whether the page
// showed any effect of it.
type Result struct {
	Action string `json:"action"`
	Ref    string `json:"ref,omitempty"`
	// Changed is false when nothing observable happened: no DOM change,
	// navigation, focus, value, scroll or (for click_at) screen change.
	Changed   bool     `json:"changed"`
	Effects   []string `json:"effects,omitempty"`
	Navigated bool     `json:"navigated,omitempty"`
	URL       string   `json:"url"`
	// Settled is false when the page was still changing at the deadline.
	Settled bool          `json:"settled"`
	Took    time.Duration `json:"took"`
	Note    string        `json:"note,omitempty"`
}

// String is the one-line verdict for a model.
func (r *Result) String() string {
	var sb strings.Builder
	sb.WriteString(r.Action)
	if r.Ref != "" {
		sb.WriteString(" " + r.Ref)
	}
	switch {
	case r.Navigated:
		fmt.Fprintf(&sb, ": navigated to %s", r.URL)
	case r.Changed:
		fmt.Fprintf(&sb, ": page changed (%s)", strings.Join(r.Effects, ", "))
	default:
		sb.WriteString(": your action had no visible effect")
	}
	if !r.Settled {
		sb.WriteString("; the page was still changing")
	}
	if r.Note != "" {
		sb.WriteString("; " + r.Note)
	}
	return sb.String()
}

type fingerprint struct {
	URL      string `json:"url"`
	Muts     int    `json:"muts"`
	Downs    int    `json:"downs"`
	Scroll   string `json:"scroll"`
	Focus    string `json:"focus"`
	Value    string `json:"value"`
	Checked  string `json:"checked"`
	Expanded string `json:"expanded"`
}

// Click clicks the control.
func (t *Tab) Click(ctx context.Context, ref string) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActClick, Ref: ref})
}

// Type replaces the field's content with text, pressing Enter after when
// submit is set.
func (t *Tab) Type(ctx context.Context, ref, text string, submit bool) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActType, Ref: ref, Text: text, Submit: submit})
}

// Select chooses an option of a native select or a custom listbox.
func (t *Tab) Select(ctx context.Context, ref, option string) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActSelect, Ref: ref, Option: option})
}

// Press presses a key or chord such as "Enter" or "Control+A".
func (t *Tab) Press(ctx context.Context, key string) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActPress, Key: key})
}

// Navigate loads url in the tab.
func (t *Tab) Navigate(ctx context.Context, url string) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActNavigate, URL: url})
}

// ClickAt clicks at screenshot coordinates.
func (t *Tab) ClickAt(ctx context.Context, x, y float64) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActClickAt, X: x, Y: y})
}

// TypeFocused types into whatever has keyboard focus.
func (t *Tab) TypeFocused(ctx context.Context, text string) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActTypeFocused, Text: text})
}

// Do performs one action with its checks before and after.
func (t *Tab) Do(ctx context.Context, a Action) (*Result, error) {
	if err := t.validate(a); err != nil {
		return nil, fmt.Errorf("%s: %w", describe(a), err)
	}
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", describe(a), err)
	}
	defer cancel()
	t.op.Lock()
	defer t.op.Unlock()
	r, err := t.act(cctx, a)
	if err != nil {
		return r, fmt.Errorf("%s: %w", describe(a), t.fail(cctx, err))
	}
	return r, nil
}

func describe(a Action) string {
	if a.Ref != "" {
		return a.Kind + " " + a.Ref
	}
	if a.Kind == ActNavigate {
		return a.Kind + " " + clipText(a.URL, 80)
	}
	return a.Kind
}

// validate rejects bad input before anything touches the page.
func (t *Tab) validate(a Action) error {
	needRef := func() error {
		if a.Ref == "" {
			return fmt.Errorf("%w: ref is required", ErrBadArgument)
		}
		return nil
	}
	switch a.Kind {
	case ActClick, ActHover, ActClear:
		return needRef()
	case ActType:
		if len(a.Text) > MaxTypeLength {
			return fmt.Errorf("%w: %d bytes (limit %d)", ErrTextTooLong, len(a.Text), MaxTypeLength)
		}
		return needRef()
	case ActTypeFocused:
		if len(a.Text) > MaxTypeLength {
			return fmt.Errorf("%w: %d bytes (limit %d)", ErrTextTooLong, len(a.Text), MaxTypeLength)
		}
		if a.Text == "" {
			return fmt.Errorf("%w: text is required", ErrBadArgument)
		}
	case ActSelect:
		if a.Option == "" {
			return fmt.Errorf("%w: option is required", ErrBadArgument)
		}
		return needRef()
	case ActUpload:
		if len(a.Files) == 0 {
			return fmt.Errorf("%w: files are required", ErrBadArgument)
		}
		for _, f := range a.Files {
			if _, err := os.Stat(f); err != nil {
				return fmt.Errorf("%w: %w", ErrBadArgument, err)
			}
		}
		return needRef()
	case ActPress:
		if _, err := parseChord(a.Key); err != nil {
			return err
		}
	case ActScroll:
		if a.Ref == "" {
			switch a.Direction {
			case "up", "down", "left", "right":
			default:
				return fmt.Errorf("%w: scroll needs a ref or a direction (up, down, left, right)", ErrBadArgument)
			}
		}
	case ActNavigate:
		return t.b.checkURL(a.URL)
	case ActClickAt:
		ss := t.b.opts.ScreenshotScale
		w, h := float64(t.b.opts.Width)*ss, float64(t.b.opts.Height)*ss
		if a.X < 0 || a.Y < 0 || a.X >= w || a.Y >= h {
			return fmt.Errorf("%w: (%g, %g) is outside the %gx%g screenshot", ErrOffscreen, a.X, a.Y, w, h)
		}
	case ActBack, ActForward, ActReload:
	case ActWait:
		if a.Until == nil {
			return fmt.Errorf("%w: wait needs a condition", ErrBadArgument)
		}
	default:
		return fmt.Errorf("%w: unknown action %q", ErrBadArgument, a.Kind)
	}
	return nil
}

// target resolves a ref to its frame world and the frame's offset in the
// top viewport, refusing refs of an earlier document.
func (t *Tab) locate(ctx context.Context, ref string) (*world, [2]float64, error) {
	loc, ok := t.refs[ref]
	if !ok {
		return nil, [2]float64{}, fmt.Errorf("%w: %s (refs come from an observation of this tab)", ErrUnknownRef, ref)
	}
	// Most refs live in the tab's own process: its frame tree alone says
	// whether the ref's document is current, without the browser-wide
	// target listing that finding out-of-process frames takes.
	fs, err := frameTree(ctx, t.target(), "")
	if err != nil {
		return nil, [2]float64{}, err
	}
	var f *cdp.Frame
	for _, x := range fs {
		if x.ID == loc.frame {
			f = x
		}
	}
	if f == nil {
		if fs, err = t.frames(ctx); err != nil {
			return nil, [2]float64{}, err
		}
		for _, x := range fs {
			if x.ID == loc.frame {
				f = x
			}
		}
	}
	if f == nil || f.LoaderID != loc.loader {
		return nil, [2]float64{}, fmt.Errorf("%s: %w", ref, ErrStaleRef)
	}
	w, err := t.world(ctx, f)
	if err != nil {
		return nil, [2]float64{}, err
	}
	var off [2]float64
	for cur := f; cur.ParentID != ""; {
		box, err := t.ownerBox(ctx, cur, fs)
		if err != nil {
			return nil, off, err
		}
		off[0] += box.X
		off[1] += box.Y
		var parent *cdp.Frame
		for _, x := range fs {
			if x.ID == cur.ParentID {
				parent = x
			}
		}
		if parent == nil {
			break
		}
		cur = parent
	}
	return w, off, nil
}

type prep struct {
	Err      string  `json:"err"`
	Hit      string  `json:"hit"`
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
	Tag      string  `json:"tag"`
	Type     string  `json:"type"`
	Editable bool    `json:"editable"`
	Role     string  `json:"role"`
	// FP is the page's state just before the input, after any scrolling.
	FP *fingerprint `json:"fp"`
}

func prepError(ref string, p prep) error {
	e := &ActionError{Ref: ref, Reason: p.Err, Hit: p.Hit}
	switch p.Err {
	case "gone":
		e.Reason = "the element is no longer on the page; observe again"
		e.Err = ErrStaleRef
	case "covered":
		e.Reason = "covered at its click point"
	case "offscreen":
		e.Reason = "could not be scrolled into the viewport"
	}
	return e
}

// pointer moves to the target, checks again that nothing covers it (moving
// can open an overlay), and returns the top-level point.
func (t *Tab) pointer(ctx context.Context, w *world, off [2]float64, ref string) (prep, float64, float64, error) {
	var p prep
	if err := t.call(ctx, w, "prepare", &p, ref, true); err != nil {
		return p, 0, 0, err
	}
	if p.Err != "" {
		return p, 0, 0, prepError(ref, p)
	}
	x, y := p.X+off[0], p.Y+off[1]
	if err := t.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, x, y, 0); err != nil {
		return p, 0, 0, err
	}
	var rc prep
	if err := t.call(ctx, w, "recheck", &rc, ref, p.X, p.Y); err != nil {
		return p, 0, 0, err
	}
	if rc.Err != "" {
		return p, 0, 0, prepError(ref, rc)
	}
	return p, x, y, nil
}

// redeliver checks that a click into an out-of-process frame reached it.
// Chromium can acknowledge the press before that frame's hit-test data
// exists, and the press then lands in the parent; since the frame saw no
// press at all, it is safe to press again once the frame has rendered.
func (t *Tab) redeliver(ctx context.Context, w *world, off [2]float64, ref string, downs int) error {
	var n int
	if err := t.call(ctx, w, "downs", &n); err != nil || n != downs {
		return err
	}
	var ok bool
	if err := t.call(ctx, w, "frame", &ok); err != nil {
		return err
	}
	_, x, y, err := t.pointer(ctx, w, off, ref)
	if err != nil {
		return err
	}
	return t.clickPoint(ctx, x, y)
}

func (t *Tab) mouse(ctx context.Context, typ input.DispatchMouseEventType, x, y float64, clicks int64) error {
	p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y}
	if typ == input.DispatchMouseEventTypeMousePressed || typ == input.DispatchMouseEventTypeMouseReleased {
		p.Button = input.MouseButtonLeft
		p.ClickCount = clicks
		if typ == input.DispatchMouseEventTypeMousePressed {
			p.Buttons = 1
		}
	}
	_, err := cdp.Call(ctx, t.target(), input.DispatchMouseEvent, p)
	return err
}

func (t *Tab) clickPoint(ctx context.Context, x, y float64) error {
	if err := t.mouse(ctx, input.DispatchMouseEventTypeMousePressed, x, y, 1); err != nil {
		return err
	}
	return t.mouse(ctx, input.DispatchMouseEventTypeMouseReleased, x, y, 1)
}

func (t *Tab) insertText(ctx context.Context, text string) error {
	_, err := cdp.Call(ctx, t.target(), input.InsertText, input.InsertTextParams{Text: text})
	return err
}

// act runs one action. Caller holds t.op.
func (t *Tab) act(ctx context.Context, a Action) (*Result, error) {
	start := time.Now()
	r := &Result{Action: a.Kind, Ref: a.Ref}
	var w *world
	var off [2]float64
	var err error
	if a.Ref != "" {
		if w, off, err = t.locate(ctx, a.Ref); err != nil {
			return nil, err
		}
	} else if w, _, err = t.mainWorld(ctx); err != nil {
		return nil, err
	}
	navCh, stopNav := t.target().Subscribe("Page.frameNavigated")
	defer stopNav()
	loadCh, stopLoad := t.target().Subscribe("Page.loadEventFired")
	defer stopLoad()

	// Pointer actions take their baseline in the same call that checks and
	// scrolls the target; the rest take it here.
	var before fingerprint
	pointerKinds := a.Kind == ActClick || a.Kind == ActHover || a.Kind == ActType || a.Kind == ActClear
	if !pointerKinds {
		if err := t.call(ctx, w, "fingerprint", &before, a.Ref); err != nil {
			return nil, err
		}
	}
	setBefore := func(p prep) {
		if pointerKinds && p.FP != nil {
			before = *p.FP
		}
	}
	var shotBefore []byte
	if a.Kind == ActClickAt {
		shotBefore, _ = t.thumb(ctx)
	}

	switch a.Kind {
	case ActClick:
		p, x, y, err := t.pointer(ctx, w, off, a.Ref)
		if err != nil {
			return nil, err
		}
		setBefore(p)
		if err := t.clickPoint(ctx, x, y); err != nil {
			return nil, err
		}
		if w.sess != t.target() {
			if err := t.redeliver(ctx, w, off, a.Ref, before.Downs); err != nil {
				return nil, err
			}
		}
	case ActHover:
		p, _, _, err := t.pointer(ctx, w, off, a.Ref)
		if err != nil {
			return nil, err
		}
		setBefore(p)
	case ActType, ActClear:
		// The checks of a click (attached, visible, enabled, not inert,
		// not covered at its point), then focus and select in the same
		// call, as Playwright's fill does: no press. A press is not even
		// trusted to focus (a page can keep the focus from it, and
		// Chromium then inserts the text into the field that had it);
		// the text itself goes in as trusted input.
		var p prep
		if err := t.call(ctx, w, "prepare", &p, a.Ref, true, true); err != nil {
			return nil, err
		}
		if p.Err != "" {
			return nil, prepError(a.Ref, p)
		}
		setBefore(p)
		if !p.Editable {
			return nil, &ActionError{Ref: a.Ref, Reason: "not a text field (" + strings.ToLower(p.Tag) + ")"}
		}
		if a.Kind == ActClear || a.Text == "" {
			if err := t.keys(ctx, chord{key: namedKeys["Backspace"]}); err != nil {
				return nil, err
			}
		} else if err := t.insertText(ctx, a.Text); err != nil {
			return nil, err
		}
		if a.Submit {
			if err := t.keys(ctx, chord{key: namedKeys["Enter"]}); err != nil {
				return nil, err
			}
		}
	case ActSelect:
		if err := t.selectOption(ctx, w, off, a, r); err != nil {
			return nil, err
		}
	case ActPress:
		c, _ := parseChord(a.Key)
		if err := t.keys(ctx, c); err != nil {
			return nil, err
		}
	case ActScroll:
		if a.Ref != "" {
			var p prep
			if err := t.call(ctx, w, "prepare", &p, a.Ref, true); err != nil {
				return nil, err
			}
			if p.Err != "" && p.Err != "covered" {
				return nil, prepError(a.Ref, p)
			}
		} else {
			amt := a.Amount
			if amt == 0 {
				amt = float64(t.b.opts.Height) * 0.8
			}
			var dx, dy float64
			switch a.Direction {
			case "up":
				dy = -amt
			case "down":
				dy = amt
			case "left":
				dx = -amt
			case "right":
				dx = amt
			}
			cx, cy := float64(t.b.opts.Width)/2, float64(t.b.opts.Height)/2
			// Sent raw: the typed params omit a zero delta, which Chrome
			// rejects for wheel events.
			if err := t.target().Call(ctx, input.DispatchMouseEvent.Method, map[string]any{"type": "mouseWheel", "x": cx, "y": cy, "deltaX": dx, "deltaY": dy}, nil); err != nil {
				return nil, err
			}
		}
	case ActNavigate:
		res, err := cdp.Call(ctx, t.target(), page.Navigate, page.NavigateParams{URL: a.URL})
		if err != nil {
			return nil, err
		}
		if res.ErrorText != "" {
			return nil, fmt.Errorf("load %s: %s", a.URL, res.ErrorText)
		}
	case ActBack, ActForward:
		h, err := cdp.Call(ctx, t.target(), page.GetNavigationHistory, cdp.Empty{})
		if err != nil {
			return nil, err
		}
		i := h.CurrentIndex - 1
		if a.Kind == ActForward {
			i = h.CurrentIndex + 1
		}
		if i < 0 || int(i) >= len(h.Entries) {
			return nil, fmt.Errorf("%w: no history entry to go %s to", ErrBadArgument, a.Kind)
		}
		if _, err := cdp.Call(ctx, t.target(), page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID}); err != nil {
			return nil, err
		}
	case ActReload:
		if _, err := cdp.Call(ctx, t.target(), page.Reload, page.ReloadParams{}); err != nil {
			return nil, err
		}
	case ActClickAt:
		ss := t.b.opts.ScreenshotScale
		x, y := a.X/ss, a.Y/ss
		if err := t.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, x, y, 0); err != nil {
			return nil, err
		}
		if err := t.clickPoint(ctx, x, y); err != nil {
			return nil, err
		}
	case ActTypeFocused:
		var fi struct {
			None     bool   `json:"none"`
			Editable bool   `json:"editable"`
			Tag      string `json:"tag"`
		}
		if err := t.call(ctx, w, "focusedInfo", &fi); err != nil {
			return nil, err
		}
		if fi.None {
			return nil, ErrNoFocus
		}
		if fi.Editable || fi.Tag == "IFRAME" {
			if err := t.insertText(ctx, a.Text); err != nil {
				return nil, err
			}
		} else {
			// Canvas apps read keydown events, not text insertion.
			for _, ch := range a.Text {
				for _, ev := range kb.Encode(ch) {
					if _, err := cdp.Call(ctx, t.target(), input.DispatchKeyEvent, *ev); err != nil {
						return nil, err
					}
				}
			}
		}
	case ActUpload:
		if err := t.upload(ctx, w, a); err != nil {
			return nil, err
		}
	case ActWait:
	}

	// After: a bounded, event-driven wait, then the verdict.
	settleMax := t.b.opts.SettleTimeout
	navigated := false
	sctx, scancel := context.WithTimeout(ctx, settleMax+time.Second)
	defer scancel()
	var st struct {
		Settled bool         `json:"settled"`
		Cond    *bool        `json:"cond"`
		FP      *fingerprint `json:"fp"`
	}
	quiet := 20
	if a.Kind == ActNavigate || a.Kind == ActBack || a.Kind == ActForward || a.Kind == ActReload {
		navigated = true
	}
	if t.waiting != nil {
		t.waiting()
	}
	if !navigated {
		var mutsBefore *int
		if a.Kind == ActType || a.Kind == ActClear {
			mutsBefore = &before.Muts
		}
		err := t.call(sctx, w, "settle", &st, quiet, settleMax.Milliseconds(), a.Until, a.Ref, mutsBefore)
		if err != nil {
			if ctx.Err() != nil || context.Cause(t.dead) != nil {
				return nil, err
			}
			if sctx.Err() != nil {
				// The in-page wait has its own timer; a page that misses
				// the host deadline is not running its timers at all.
				r.Took = time.Since(start)
				r.URL = before.URL
				return r, fmt.Errorf("%w: no answer %v after the input was sent", ErrUnresponsive, settleMax+time.Second)
			}
			// The document went away under the wait: a navigation.
			navigated = true
		}
	}
	select {
	case <-navCh:
		navigated = true
	default:
	}
	if navigated {
		// Wait for the new document's load event or the deadline, then
		// let it settle in its own world.
		select {
		case <-loadCh:
		case <-sctx.Done():
			if ctx.Err() != nil || context.Cause(t.dead) != nil {
				return nil, context.Cause(sctx)
			}
		}
		mw, _, err := t.mainWorld(ctx)
		if err != nil {
			return nil, err
		}
		w = mw
		st.Settled = true
		if a.Until != nil {
			st.Cond = nil
			if err := t.call(sctx, w, "settle", &st, quiet, settleMax.Milliseconds(), a.Until, ""); err != nil {
				return nil, err
			}
		}
	}
	var after fingerprint
	if st.FP != nil && !navigated {
		after = *st.FP
	} else if err := t.call(ctx, w, "fingerprint", &after, refIfSame(a, navigated)); err != nil {
		return nil, err
	}
	r.URL = after.URL
	r.Settled = st.Settled
	r.Navigated = navigated && (after.URL != before.URL || a.Kind != ActWait)
	if r.Navigated {
		r.Effects = append(r.Effects, "navigation")
	}
	if !navigated {
		if after.URL != before.URL {
			r.Effects = append(r.Effects, "url")
		}
		if after.Muts != before.Muts {
			r.Effects = append(r.Effects, "dom")
		}
		// A clicked button taking focus is not an effect of the application.
		if after.Focus != before.Focus && !(a.Kind == ActClick && after.Focus == a.Ref) {
			r.Effects = append(r.Effects, "focus")
		}
		if after.Value != before.Value {
			r.Effects = append(r.Effects, "value")
		}
		if after.Checked != before.Checked {
			r.Effects = append(r.Effects, "checked")
		}
		if after.Expanded != before.Expanded {
			r.Effects = append(r.Effects, "expanded")
		}
		if after.Scroll != before.Scroll {
			r.Effects = append(r.Effects, "scroll")
		}
	}
	if shotBefore != nil {
		if shotAfter, err := t.thumb(ctx); err == nil && !bytes.Equal(shotBefore, shotAfter) {
			r.Effects = append(r.Effects, "screen")
		}
	}
	r.Changed = len(r.Effects) > 0
	r.Took = time.Since(start)
	if a.Until != nil && (st.Cond == nil || !*st.Cond) {
		return r, fmt.Errorf("%w: %s", ErrCondition, condString(a.Until))
	}
	return r, nil
}

func refIfSame(a Action, navigated bool) string {
	if navigated {
		return ""
	}
	return a.Ref
}

// condString describes a condition for an error; a value to wait for is
// masked, since it may be what someone typed into a password field.
func condString(c *Condition) string {
	cc := *c
	if cc.Value != nil {
		masked := "***"
		cc.Value = &masked
	}
	b, _ := json.Marshal(cc)
	return string(b)
}

// selectOption picks an option in a native select, or opens a custom
// combobox and clicks its option with trusted input.
func (t *Tab) selectOption(ctx context.Context, w *world, off [2]float64, a Action, r *Result) error {
	var res struct {
		Err      string   `json:"err"`
		OK       bool     `json:"ok"`
		Chosen   string   `json:"chosen"`
		Custom   bool     `json:"custom"`
		Expanded *string  `json:"expanded"`
		Options  []string `json:"options"`
	}
	// Native selects render their popup outside the page, so the value is
	// set in the page (as Puppeteer does), with input and change events.
	if err := t.call(ctx, w, "selectNative", &res, a.Ref, a.Option); err != nil {
		return err
	}
	if res.Err != "" {
		if res.Err == "no option" {
			return fmt.Errorf("%w: no option %q (options: %s)", ErrBadArgument, a.Option, strings.Join(res.Options, "|"))
		}
		return prepError(a.Ref, prep{Err: res.Err})
	}
	if !res.Custom {
		r.Note = "chose " + res.Chosen
		return nil
	}
	if res.Expanded == nil || *res.Expanded != "true" {
		_, x, y, err := t.pointer(ctx, w, off, a.Ref)
		if err != nil {
			return err
		}
		if err := t.clickPoint(ctx, x, y); err != nil {
			return err
		}
	}
	// The listbox may render after the click: wait for the option to exist.
	var found struct {
		Err     string `json:"err"`
		Ref     string `json:"ref"`
		NextRef int    `json:"nextRef"`
	}
	deadline := time.Now().Add(t.b.opts.SettleTimeout)
	for {
		var st struct{}
		if err := t.call(ctx, w, "settle", &st, 30, 500, nil); err != nil {
			return err
		}
		found.Err = ""
		if err := t.call(ctx, w, "findOption", &found, a.Ref, a.Option, t.nextRef); err != nil {
			return err
		}
		if found.Err == "" || time.Now().After(deadline) {
			break
		}
	}
	if found.Err != "" {
		return fmt.Errorf("%w: no visible option %q after opening %s", ErrBadArgument, a.Option, a.Ref)
	}
	t.nextRef = found.NextRef
	t.refs[found.Ref] = t.refs[a.Ref]

	_, x, y, err := t.pointer(ctx, w, off, found.Ref)
	if err != nil {
		return err
	}
	r.Note = "clicked option " + found.Ref
	return t.clickPoint(ctx, x, y)
}

func (t *Tab) upload(ctx context.Context, w *world, a Action) error {
	res, err := cdp.Call(ctx, w.sess, runtime.Evaluate, runtime.EvaluateParams{
		Expression: fmt.Sprintf("__vroom.resolve(%q)", a.Ref), ContextID: w.ctxID, Silent: new(true),
	})
	if err != nil {
		return err
	}
	if res.Result == nil || res.Result.ObjectID == "" {
		return prepError(a.Ref, prep{Err: "gone"})
	}
	defer cdp.Call(ctx, w.sess, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: res.Result.ObjectID})
	if !strings.Contains(res.Result.Description, "input") {
		return &ActionError{Ref: a.Ref, Reason: "not a file input"}
	}
	_, err = cdp.Call(ctx, w.sess, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: a.Files, ObjectID: res.Result.ObjectID})
	return err
}

// chord is a key with modifiers.
type chord struct {
	mods int64
	key  *kb.Key
}

// namedKeys maps DOM key names to their definitions.
var namedKeys = func() map[string]*kb.Key {
	m := map[string]*kb.Key{}
	for r, k := range kb.Keys {
		if k.Print && r >= ' ' && r < 0x7f {
			continue
		}
		if _, ok := m[k.Key]; !ok {
			m[k.Key] = k
		}
	}
	m["Enter"] = kb.Keys['\r']
	m["Space"] = kb.Keys[' ']
	m["Tab"] = kb.Keys['\t']
	return m
}()

const (
	modAlt   = 1
	modCtrl  = 2
	modMeta  = 4
	modShift = 8
)

func parseChord(s string) (chord, error) {
	var c chord
	if s == "" {
		return c, fmt.Errorf("%w: key is required", ErrBadArgument)
	}
	parts := strings.Split(s, "+")
	if strings.HasSuffix(s, "++") || s == "+" {
		parts = append(parts[:len(parts)-2], "+")
	}
	for i, p := range parts {
		last := i == len(parts)-1
		if !last {
			switch strings.ToLower(p) {
			case "control", "ctrl":
				c.mods |= modCtrl
			case "alt", "option":
				c.mods |= modAlt
			case "meta", "cmd", "command", "super":
				c.mods |= modMeta
			case "shift":
				c.mods |= modShift
			default:
				return c, fmt.Errorf("%w: unknown modifier %q in %q", ErrBadArgument, p, s)
			}
			continue
		}
		if k, ok := namedKeys[p]; ok {
			c.key = k
		} else if utf8.RuneCountInString(p) == 1 {
			r, _ := utf8.DecodeRuneInString(p)
			k, ok := kb.Keys[r]
			if !ok {
				return c, fmt.Errorf("%w: unknown key %q", ErrBadArgument, p)
			}
			c.key = k
		} else {
			for name, k := range namedKeys {
				if strings.EqualFold(name, p) {
					c.key = k
				}
			}
			if c.key == nil {
				return c, fmt.Errorf("%w: unknown key %q", ErrBadArgument, p)
			}
		}
	}
	return c, nil
}

func (t *Tab) keys(ctx context.Context, c chord) error {
	k := c.key
	down := input.DispatchKeyEventParams{
		Type: input.DispatchKeyEventTypeKeyDown, Modifiers: c.mods, Key: k.Key, Code: k.Code,
		WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native,
	}
	// Text goes with the keydown unless a command modifier turns the key
	// into a shortcut.
	if k.Print && c.mods&(modCtrl|modAlt|modMeta) == 0 {
		down.Text, down.UnmodifiedText = k.Text, k.Unmodified
	} else {
		down.Type = input.DispatchKeyEventTypeRawKeyDown
	}
	if k.Key == "Enter" && c.mods == 0 {
		down.Type, down.Text, down.UnmodifiedText = input.DispatchKeyEventTypeKeyDown, "\r", "\r"
	}
	if _, err := cdp.Call(ctx, t.target(), input.DispatchKeyEvent, down); err != nil {
		return err
	}
	up := down
	up.Type, up.Text, up.UnmodifiedText = input.DispatchKeyEventTypeKeyUp, "", ""
	_, err := cdp.Call(ctx, t.target(), input.DispatchKeyEvent, up)
	return err
}

// BatchResult is the outcome of a batch: one result per step run, the
// index and error of the step that failed (if any), and one observation.
type BatchResult struct {
	Results     []*Result    `json:"results"`
	Failed      int          `json:"failed"` // -1 when every step ran
	Err         string       `json:"error,omitempty"`
	Observation *Observation `json:"observation,omitempty"`
}

// Batch runs the steps in order, each with its checks; a step whose
// action fails or whose Until does not hold stops the batch. It returns one
// observation of the final page. The error is that of the failed step.
func (t *Tab) Batch(ctx context.Context, steps []Action, opts ObserveOptions) (*BatchResult, error) {
	for i, a := range steps {
		if err := t.validate(a); err != nil {
			return &BatchResult{Failed: i, Err: err.Error()}, fmt.Errorf("batch step %d %s: %w", i, describe(a), err)
		}
	}
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	defer cancel()
	t.op.Lock()
	defer t.op.Unlock()
	br := &BatchResult{Failed: -1}
	var stepErr error
	for i, a := range steps {
		r, err := t.act(cctx, a)
		if r != nil {
			br.Results = append(br.Results, r)
		}
		if err != nil {
			br.Failed = i
			stepErr = fmt.Errorf("batch step %d %s: %w", i, describe(a), t.fail(cctx, err))
			br.Err = stepErr.Error()
			break
		}
	}
	if cctx.Err() == nil {
		o := opts.norm()
		if obs, err := t.observe(cctx, o); err == nil {
			t.bases.put(o.key(), obs)
			br.Observation = obs
		}
	}
	return br, stepErr
}

var errNoThumb = errors.New("no thumbnail")

// thumb is a small, cheap capture used only to tell whether the screen
// changed (a canvas repaint has no DOM mutation to see).
func (t *Tab) thumb(ctx context.Context) ([]byte, error) {
	clip, err := t.viewportClip(ctx, 0.25)
	if err != nil {
		return nil, err
	}
	res, err := cdp.Call(ctx, t.target(), page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatPng, OptimizeForSpeed: new(true), Clip: clip,
	})
	if err != nil {
		return nil, err
	}
	if len(res.Data) == 0 {
		return nil, errNoThumb
	}
	return res.Data, nil
}
