package browser

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// MaxTypeLength is the most text, in bytes, one type action accepts.
const MaxTypeLength = 64 << 10

// ActionKind names what an action does.
type ActionKind string

// Action kinds.
const (
	ActClick       ActionKind = "click"
	ActType        ActionKind = "type"
	ActClear       ActionKind = "clear"
	ActSelect      ActionKind = "select"
	ActPress       ActionKind = "press"
	ActScroll      ActionKind = "scroll"
	ActHover       ActionKind = "hover"
	ActNavigate    ActionKind = "navigate"
	ActBack        ActionKind = "back"
	ActForward     ActionKind = "forward"
	ActReload      ActionKind = "reload"
	ActClickAt     ActionKind = "click_at"
	ActTypeFocused ActionKind = "type_focused"
	ActUpload      ActionKind = "upload"
	ActWait        ActionKind = "wait"
	// ActDialog answers the open JavaScript dialog: Accept, and Text for
	// a prompt.
	ActDialog ActionKind = "dialog"
	// ActAuth answers the oldest site asking for a password: Username
	// and Password with Accept, a cancel without.
	ActAuth ActionKind = "auth"
	// ActDrag drags Ref onto To, or by DX, DY CSS pixels.
	ActDrag ActionKind = "drag"
)

// ActionKinds lists every action kind Do takes, for readers that build a
// table of them (tools, schemas) and must miss none.
func ActionKinds() []ActionKind {
	return []ActionKind{ActClick, ActType, ActClear, ActSelect, ActPress, ActScroll, ActHover, ActNavigate, ActBack,
		ActForward, ActReload, ActClickAt, ActTypeFocused, ActUpload, ActWait, ActDialog, ActAuth, ActDrag}
}

// Action is one step an agent asks for. Which fields matter depends on Kind.
type Action struct {
	Kind      ActionKind `json:"action"`
	Ref       string     `json:"ref,omitempty"`
	Text      string     `json:"text,omitempty"`
	Submit    bool       `json:"submit,omitempty"`
	Option    string     `json:"option,omitempty"`
	Key       string     `json:"key,omitempty"`       // press: "Enter", "Control+A", "Shift+Tab"
	Direction string     `json:"direction,omitempty"` // scroll: up, down, left, right
	Amount    float64    `json:"amount,omitempty"`    // scroll: CSS pixels (default most of a screen)
	X         float64    `json:"x,omitempty"`         // click_at: screenshot pixels
	Y         float64    `json:"y,omitempty"`
	URL       string     `json:"url,omitempty"`
	Files     []string   `json:"files,omitempty"`
	Accept    bool       `json:"accept,omitempty"` // dialog: OK rather than Cancel; auth: sign in rather than cancel
	To        string     `json:"to,omitempty"`     // drag: the ref to drop on
	DX        float64    `json:"dx,omitempty"`     // drag: CSS pixels right (negative: left)
	DY        float64    `json:"dy,omitempty"`     // drag: CSS pixels down (negative: up)
	Username  string     `json:"username,omitempty"`
	Password  string     `json:"password,omitempty"`
	// Until is a condition to wait for after acting; in a batch it is also
	// the check that must hold before the next step runs.
	Until *Condition `json:"until,omitempty"`
}

// pointed reports whether the action checks its target at a point (as a
// click does), which takes the page's baseline in the same call.
func (a Action) pointed() bool {
	return a.Kind == ActClick || a.Kind == ActHover || a.Kind == ActType || a.Kind == ActClear || a.Kind == ActDrag
}

// navigates reports whether the action loads another document by itself.
func (a Action) navigates() bool {
	return a.Kind == ActNavigate || a.Kind == ActBack || a.Kind == ActForward || a.Kind == ActReload
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

// condString describes a condition for an error; a value to wait for is
// masked, since it may be what someone typed into a password field.
func condString(c *Condition) string {
	cc := *c
	if cc.Value != nil {
		masked := "***"
		cc.Value = &masked
	}
	// A Condition holds only strings and bools, which always marshal.
	b, _ := json.Marshal(cc)
	return string(b)
}

// Result is the verdict on one action: what was done and whether the page
// showed any effect of it.
type Result struct {
	Action ActionKind `json:"action"`
	Ref    string     `json:"ref,omitempty"`
	// Changed is false when nothing observable happened: no DOM change,
	// navigation, focus, value, scroll or (for click_at) screen change.
	Changed   bool     `json:"changed"`
	Effects   []string `json:"effects,omitempty"`
	Navigated bool     `json:"navigated,omitempty"`
	// NavRequested reports that the page asked for a navigation during
	// the action (a form submitted, a link followed) that had neither
	// committed nor ended when the action stopped waiting for it:
	// Options.SettleTimeout after the input, or after the tab's guard
	// let the last held request go.
	NavRequested bool   `json:"navRequested,omitempty"`
	URL          string `json:"url"`
	// Settled is false when the page was still changing at the deadline.
	Settled bool `json:"settled"`
	// Pending counts the requests the action started that were still in
	// flight when the settle's network bound (about 2 s) was reached.
	Pending int           `json:"pending,omitempty"`
	Took    time.Duration `json:"took"`
	Note    string        `json:"note,omitempty"`
	// Dialog is the JavaScript dialog the action raised that waits for
	// the holder's answer (Tab.AnswerDialog): the page does nothing else
	// until then, though it can still be navigated away from.
	Dialog *Dialog `json:"dialog,omitempty"`
	// Dialogs are the dialogs closed during the action: those the tab's
	// policy answered (an alert accepted), and, for ActDialog, the one
	// answered.
	Dialogs []Dialog `json:"dialogs,omitempty"`
	// Chooser is the file chooser the action opened, waiting for files
	// (an upload without a ref sets them).
	Chooser *FileChooser `json:"chooser,omitempty"`
	// Downloads are the downloads the action started, as they were when
	// it returned (a small file is done by then).
	Downloads []Download `json:"downloads,omitempty"`
	// Opened are the tabs the action opened (a link or form with a
	// target, window.open), leased to the tab's holder.
	Opened []TabInfo `json:"opened,omitempty"`
	// Closed: the page closed its own tab during the action (a sign-in
	// popup done); the opener, if any, is the tab to go back to.
	Closed bool `json:"closed,omitempty"`
	// Auth is the last site that asked, during the action, for a user
	// name and password (ActAuth answers it).
	Auth *AuthChallenge `json:"auth,omitempty"`
}

// String is the one-line verdict for a model.
func (r *Result) String() string {
	var sb strings.Builder
	sb.WriteString(string(r.Action))
	if r.Ref != "" {
		sb.WriteString(" " + r.Ref)
	}
	switch {
	case r.Closed:
		sb.WriteString(": the page closed its own tab")
	case r.Navigated:
		fmt.Fprintf(&sb, ": navigated to %s", r.URL)
	case r.Changed:
		fmt.Fprintf(&sb, ": page changed (%s)", strings.Join(r.Effects, ", "))
	default:
		sb.WriteString(": your action had no visible effect")
	}
	if !r.Settled && r.Dialog == nil {
		sb.WriteString("; the page was still changing")
	}
	if r.Pending > 0 {
		fmt.Fprintf(&sb, "; still loading (%d %s)", r.Pending, plural(r.Pending, "request", "requests"))
	}
	if r.Note != "" {
		sb.WriteString("; " + r.Note)
	}
	for _, d := range r.Dialogs {
		sb.WriteString("; " + d.String())
	}
	if r.Dialog != nil {
		sb.WriteString("; " + r.Dialog.String() + " and waits for an answer")
	}
	if r.Chooser != nil {
		sb.WriteString("; " + r.Chooser.String())
	}
	for _, d := range r.Downloads {
		sb.WriteString("; " + d.String())
	}
	if r.Auth != nil {
		sb.WriteString("; " + r.Auth.String())
		if r.Auth.Answered == "" {
			sb.WriteString(", waiting for an answer")
		}
	}
	for _, o := range r.Opened {
		fmt.Fprintf(&sb, "; opened a new tab %s %q %s", o.ID, clipText(o.Title, 60), clipText(o.URL, 80))
	}
	return sb.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// describe names an action in its errors.
func describe(a Action) string {
	if a.Ref != "" {
		return string(a.Kind) + " " + a.Ref
	}
	if a.Kind == ActNavigate {
		return string(a.Kind) + " " + clipText(a.URL, 80)
	}
	return string(a.Kind)
}

// validate rejects bad input before anything touches the page.
func (t *Tab) validate(a Action) error {
	switch a.Kind {
	case ActClick, ActHover, ActClear:
		return needRef(a)
	case ActType, ActTypeFocused:
		return validateText(a)
	case ActSelect:
		if a.Option == "" {
			return fmt.Errorf("%w: option is required", ErrBadArgument)
		}
		return needRef(a)
	case ActUpload:
		return validateUpload(a)
	case ActDrag:
		return validateDrag(a)
	case ActPress:
		_, err := parseChord(a.Key)
		return err
	case ActScroll:
		return validateScroll(a)
	case ActNavigate:
		return t.b.checkURL(a.URL)
	case ActClickAt:
		return t.validatePoint(a)
	case ActBack, ActForward, ActReload, ActAuth:
		return nil
	case ActDialog:
		if len(a.Text) > MaxTypeLength {
			return fmt.Errorf("%w: %d bytes (limit %d)", ErrTextTooLong, len(a.Text), MaxTypeLength)
		}
		return nil
	case ActWait:
		if a.Until == nil {
			return fmt.Errorf("%w: wait needs a condition", ErrBadArgument)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown action %q", ErrBadArgument, a.Kind)
}

func needRef(a Action) error {
	if a.Ref == "" {
		return fmt.Errorf("%w: ref is required", ErrBadArgument)
	}
	return nil
}

// validateText checks type (into a ref) and type_focused (into the focus).
func validateText(a Action) error {
	if len(a.Text) > MaxTypeLength {
		return fmt.Errorf("%w: %d bytes (limit %d)", ErrTextTooLong, len(a.Text), MaxTypeLength)
	}
	if a.Kind == ActType {
		return needRef(a)
	}
	if a.Text == "" {
		return fmt.Errorf("%w: text is required", ErrBadArgument)
	}
	return nil
}

func validateScroll(a Action) error {
	if a.Ref != "" {
		return nil
	}
	switch a.Direction {
	case "up", "down", "left", "right":
		return nil
	}
	return fmt.Errorf("%w: scroll needs a ref or a direction (up, down, left, right)", ErrBadArgument)
}

// validatePoint checks that click_at's point lies inside the screenshot.
func (t *Tab) validatePoint(a Action) error {
	ss := t.b.opts.ScreenshotScale
	w, h := float64(t.b.opts.Width)*ss, float64(t.b.opts.Height)*ss
	if a.X < 0 || a.Y < 0 || a.X >= w || a.Y >= h {
		return fmt.Errorf("%w: (%g, %g) is outside the %gx%g screenshot", ErrOffscreen, a.X, a.Y, w, h)
	}
	return nil
}
