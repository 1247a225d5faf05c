package agents

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Tab is a browser tab an executor observes and acts on. The browser
// package provides the real one through an adapter in app; agents only
// declares what it needs.
type Tab interface {
	// ID identifies the tab to the program: spawn{tab}, leases, the UI's
	// live view. People know a tab by its Info.
	ID() string
	// Info describes the tab as it is now. It must not block: it names
	// the tab in the transcript.
	Info() TabInfo
	// Observe returns the page as compact text: URL, title and a ranked
	// list of controls with short refs (e17 button "Add skill"). It also
	// sets the baseline Diff compares with.
	Observe(ctx context.Context) (Observation, error)
	// Find is Observe narrowed: controls matching opts over the whole
	// page (off-screen included), in view first. Refs are the same as
	// Observe's, so a ref found here can be acted on. It leaves Diff's
	// baseline alone: a search shows part of the page, and the next diff
	// must still report all that changed since the last whole look.
	Find(ctx context.Context, opts FindOptions) (Observation, error)
	// Wait waits until w holds, or until the page is idle when w is
	// empty, for at most timeout. A timeout is a WaitOutcome with Met
	// false, not an error; errors are for a wait that could not run.
	Wait(ctx context.Context, w WaitFor, timeout time.Duration) (WaitOutcome, error)
	// Diff describes what changed since the last Observe or Diff; "" when
	// nothing did.
	Diff(ctx context.Context) (string, error)
	// Target describes what a would touch, for the safety gate, before it
	// is performed.
	Target(ctx context.Context, a Action) (Target, error)
	// Act performs a. Errors are for actions that could not be attempted
	// (a stale ref, a closed tab); an action that ran without effect is an
	// Outcome with Effect false.
	Act(ctx context.Context, a Action) (Outcome, error)
	// Screenshot captures the viewport; click_at coordinates are in its
	// pixels.
	Screenshot(ctx context.Context) (Screenshot, error)
	// ReadPage returns the page's whole readable text, as a person reads
	// it: headings, paragraphs, lists, tables, the frames' text, hidden
	// text left out. read_page cuts it into parts (ReadPage, the
	// function).
	ReadPage(ctx context.Context) (string, error)
}

// TabProvider opens tabs for executors and lends existing ones.
type TabProvider interface {
	// Describe tells what the existing tab id shows, without leasing it,
	// so the planner knows the tabs the person gave it by title and URL.
	Describe(ctx context.Context, id string) (TabInfo, error)
	// Open opens a tab at url ("" for a blank one) leased to owner.
	Open(ctx context.Context, owner, url string) (Tab, error)
	// Attach leases the existing tab id to owner, keeping its state (a
	// logged-in session, a half-filled form).
	Attach(ctx context.Context, owner, id string) (Tab, error)
	// Release ends owner's lease on the tab; the tab stays open.
	Release(t Tab, owner string)
}

// TabInfo is what a person knows a tab by.
type TabInfo struct {
	Title string
	URL   string
}

// Name renders the tab for people: its title and host ("GitHub – octocat
// (github.com)"), the host alone when the title only repeats the address,
// and "a new tab" before it shows anything. A target id means nothing to a
// person, so it is never part of the name.
func (i TabInfo) Name() string {
	host := ""
	if u, err := url.Parse(i.URL); err == nil {
		host = u.Hostname()
	}
	title := strings.TrimSpace(i.Title)
	if _, bare, ok := strings.Cut(i.URL, "://"); title == i.URL || ok && title == bare {
		// Chromium titles a page without <title> by its address.
		title = ""
	}
	switch {
	case title == "" && host == "":
		return "a new tab"
	case title == "":
		return host
	case host == "":
		return clip(title, 80)
	}
	return clip(title, 80) + " (" + host + ")"
}

// Observation is a page seen as text.
type Observation struct {
	URL   string
	Title string
	// Text is the compact rendering given to the model.
	Text string
}

// FindOptions narrows an observation (the executor's observe tool).
type FindOptions struct {
	// Query keeps controls whose name, value or nearby text contains it.
	Query string
	// Roles keeps controls with these roles (button, link, option...).
	Roles []string
	// Within is a ref: only that control's subtree (a dialog, a list).
	Within string
	// Limit caps the controls returned; 0 is the tab's default.
	Limit int
}

// Narrowed reports whether o asks for less than the default view.
func (o FindOptions) Narrowed() bool {
	return o.Query != "" || len(o.Roles) > 0 || o.Within != ""
}

// WaitFor is what the executor's wait tool waits for: the first of the set
// conditions to hold. With none set, it waits for the page to be idle (no
// request in flight, the DOM quiet for 500 ms).
type WaitFor struct {
	Text  string // the page's text contains it
	Gone  string // the page's text no longer contains it
	URL   string // the URL contains it
	Query string // a control matching it (as FindOptions.Query) exists
}

// String describes the awaited condition for the model, as a clause that
// completes "waited until ..." and "... did not happen".
func (w WaitFor) String() string {
	parts := w.clauses(`text %q appeared`, `text %q went away`, `the URL contained %q`, `a control matching %q appeared`)
	if len(parts) == 0 {
		return "the page was idle (no request in flight, nothing changing)"
	}
	return strings.Join(parts, " or ")
}

// clauses formats each set condition with its format (each takes the
// condition's value as %q), in the order Text, Gone, URL, Query: the one
// walk over the conditions for every wording of them.
func (w WaitFor) clauses(text, gone, url, query string) []string {
	var parts []string
	for _, c := range [...]struct{ v, format string }{{w.Text, text}, {w.Gone, gone}, {w.URL, url}, {w.Query, query}} {
		if c.v != "" {
			parts = append(parts, fmt.Sprintf(c.format, c.v))
		}
	}
	return parts
}

// WaitOutcome is how a Wait ended.
type WaitOutcome struct {
	// Met is false when the timeout passed first.
	Met bool
	// Condition names the condition that held, in the tab's words.
	Condition string
	Took      time.Duration
	// Pending is how many requests were still in flight at the end.
	Pending int
}

// ActionKind names what an Action does, as the executor's tool of the same
// name.
type ActionKind string

// Action kinds, named as the executor's tools.
const (
	ActClick       ActionKind = "click"
	ActType        ActionKind = "type"
	ActSelect      ActionKind = "select"
	ActPress       ActionKind = "press"
	ActScroll      ActionKind = "scroll"
	ActNavigate    ActionKind = "navigate"
	ActBack        ActionKind = "back"
	ActClickAt     ActionKind = "click_at"
	ActTypeFocused ActionKind = "type_focused"
	ActUpload      ActionKind = "upload"
	ActDrag        ActionKind = "drag"
	ActHover       ActionKind = "hover"
	ActDialog      ActionKind = "dialog"
)

// Action is one step an executor asks its tab for; which fields matter
// depends on Kind, as in the tool of the same name.
type Action struct {
	Kind      ActionKind `json:"action"`
	Ref       string     `json:"ref,omitempty"`
	Text      string     `json:"text,omitempty"`
	Submit    bool       `json:"submit,omitempty"`
	Option    string     `json:"option,omitempty"`
	Key       string     `json:"key,omitempty"`
	Direction string     `json:"direction,omitempty"`
	Amount    float64    `json:"amount,omitempty"`
	X         float64    `json:"x,omitempty"`
	Y         float64    `json:"y,omitempty"`
	URL       string     `json:"url,omitempty"`
	// Files are the paths an upload sets on a file input.
	Files []string `json:"files,omitempty"`
	// To is the ref a drag drops on; DX, DY move by CSS pixels instead.
	To string  `json:"to,omitempty"`
	DX float64 `json:"dx,omitempty"`
	DY float64 `json:"dy,omitempty"`
	// Accept answers a dialog with OK rather than Cancel.
	Accept bool `json:"accept,omitempty"`
}

// String renders the action verbatim, as shown to the person when it
// needs confirmation.
func (a Action) String() string {
	switch a.Kind {
	case ActClick:
		return "click " + a.Ref
	case ActType:
		s := fmt.Sprintf("type %q into %s", a.Text, a.Ref)
		if a.Submit {
			s += " and submit"
		}
		return s
	case ActSelect:
		return fmt.Sprintf("select %q in %s", a.Option, a.Ref)
	case ActPress:
		return "press " + a.Key
	case ActScroll:
		if a.Ref != "" {
			return "scroll to " + a.Ref
		}
		return "scroll " + a.Direction
	case ActNavigate:
		return "navigate to " + a.URL
	case ActBack:
		return "go back"
	case ActClickAt:
		return fmt.Sprintf("click at (%g, %g)", a.X, a.Y)
	case ActTypeFocused:
		return fmt.Sprintf("type %q into the focused element", a.Text)
	case ActUpload:
		return fmt.Sprintf("upload %s into %s", strings.Join(a.Files, ", "), a.Ref)
	case ActDrag:
		if a.To != "" {
			return "drag " + a.Ref + " to " + a.To
		}
		return fmt.Sprintf("drag %s by (%g, %g)", a.Ref, a.DX, a.DY)
	case ActHover:
		return "hover over " + a.Ref
	case ActDialog:
		if !a.Accept {
			return "dismiss the dialog"
		}
		if a.Text != "" {
			return fmt.Sprintf("answer the dialog with %q", a.Text)
		}
		return "accept the dialog"
	}
	return string(a.Kind)
}

// key identifies the action and its target for loop detection.
func (a Action) key() string {
	switch a.Kind {
	case ActClickAt:
		// Nearby points are the same target.
		return fmt.Sprintf("click_at %d,%d", int(a.X)/10, int(a.Y)/10)
	case ActType, ActTypeFocused:
		return string(a.Kind) + " " + a.Ref + " " + a.Text
	}
	return a.String()
}

// Target is what an action touches, as the safety gate sees it.
type Target struct {
	Role string // ARIA role: button, link, textbox...
	Name string // accessible name: "Place order"
	// Form names the enclosing form (its name, id or action URL).
	Form string
	// URL is the page's URL, or the destination of a navigation or link.
	URL string
	// Sensitive marks a password or card field: typed text is masked in
	// the run log.
	Sensitive bool
	// NewTab marks a link that opens another tab: the new tab's requests
	// are not the guarded tab's, so its destination is checked before the
	// click, as a navigate is.
	NewTab bool
}

// Outcome is the verdict on one action.
type Outcome struct {
	// Summary is the one-line verdict for the model. It says
	// NoEffect only when Effect is false; the runtime replaces that
	// phrase when the diff it takes next shows the page did change.
	Summary string
	// Effect reports whether the action had any visible effect.
	Effect    bool
	Navigated bool
	URL       string
	// Pending counts requests the page still had in flight when the
	// action stopped waiting for them; the result says "still loading".
	Pending int
	// Dialog is the JavaScript dialog the action left open, waiting for
	// the dialog tool's answer.
	Dialog *PageDialog
	// Switched reports that the agent's view moved to another tab: a
	// popup the page opened, or back to its opener when the popup closed.
	Switched bool
}

// PageDialog is a JavaScript dialog a page opened.
type PageDialog struct {
	Kind    string // alert, confirm, prompt, beforeunload
	Message string
}

// NoEffect is the verdict of an action that changed nothing. It is part of
// the tool contract (TOOLS.md): the loop detector counts only it, so it is
// said only when nothing changed.
const NoEffect = "your action had no visible effect"

// Screenshot is an image of the viewport.
type Screenshot struct {
	Data   []byte
	MIME   string // image/png or image/jpeg
	Width  int
	Height int
}

// The exfiltration guard holds a tab's requests through what the tab
// offers below: a GuardedTab, found under decorations by Unwrap.

// Request is a request an agent's tab is about to send: a document (a
// navigation, a form's submission, a redirect's next hop), or one a page's
// script sends (fetch, XHR, a beacon, an image it adds). The browser holds
// it until the guard answers.
type Request struct {
	URL    string
	Method string
	// Body is the data of a POST, as sent.
	Body string
	// Redirect is set for the hop of a redirect.
	Redirect bool
	// Script is set for a request a page's script sent.
	Script bool
	// Subframe is set for a document an iframe loads: the page asked
	// for it, the agent did not go there.
	Subframe bool
	// InPage says what the browser refused inside the page itself, no
	// request made ("a WebSocket", "a WebRTC connection"), URL being
	// where it would have gone (an origin) or empty. The guard's check
	// is told so it is reported as any refusal; it was refused already.
	InPage string
	// Masked are the values of the page's masked fields (passwords, card
	// numbers) as the tab read them before the action under way: the
	// person's, which the request may not carry elsewhere.
	Masked []string
}

// GuardedTab is a Tab whose document requests can be held for a check,
// which the executor installs for as long as it holds the tab. The real
// tab does (app's adapter over the browser's request interception); a tab
// without it has only the checks before an action.
type GuardedTab interface {
	Tab
	// Guard holds every document request of the tab, and those its pages'
	// scripts send, until check answers: nil lets it go, an error stops
	// it (the page stays where it was). stop removes the guard.
	Guard(ctx context.Context, check func(ctx context.Context, r Request) error) (stop func(), err error)
	// Secrets returns values of the person's that the tab holds and no
	// page may send elsewhere: the cookies of the sites given (host
	// patterns), and the values of masked fields (passwords, card numbers).
	Secrets(ctx context.Context, sites []string) ([]Secret, error)
}

// Secret is a value of the person's the tab holds, with what it is
// ("a cookie of example.com", "a masked field's value").
type Secret struct {
	What  string
	Value string
	// Cookie marks a cookie's value: pages' scripts send first-party
	// cookies' values (an analytics id) to other sites all the time.
	Cookie bool
}

// Unwrapper is a Tab that decorates another (error mapping, fault
// watching); the guard looks through it for the GuardedTab underneath.
type Unwrapper interface {
	Unwrap() Tab
}

// guardedOf finds the GuardedTab under t's decorations.
func guardedOf(t Tab) (GuardedTab, bool) {
	for range 8 { // decorations are few; a cycle must not spin
		if g, ok := t.(GuardedTab); ok {
			return g, true
		}
		u, ok := t.(Unwrapper)
		if !ok {
			return nil, false
		}
		t = u.Unwrap()
	}
	return nil, false
}
