package browser

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the package returns wraps one of these (or a
// context error), so callers branch with errors.Is.
var (
	// ErrNoBrowser means no Chromium executable was found.
	ErrNoBrowser = errors.New("no Chromium or Chrome executable found (set VROOM_CHROME)")
	// ErrBrowserClosed means the browser process died or the connection to
	// it was lost; Relaunch starts a new one.
	ErrBrowserClosed = errors.New("browser closed")
	// ErrTabClosed means the tab was closed, here or from elsewhere.
	ErrTabClosed = errors.New("tab closed")
	// ErrTabCrashed means the tab's renderer crashed; reload or close it.
	ErrTabCrashed = errors.New("tab renderer crashed")
	// ErrTabLeased means another owner holds the tab's lease; see LeaseError.
	ErrTabLeased = errors.New("tab leased")
	// ErrUnknownRef means the ref was never handed out for this tab.
	ErrUnknownRef = errors.New("unknown ref")
	// ErrStaleRef means the ref belonged to an earlier document: observe again.
	ErrStaleRef = errors.New("stale ref: the page navigated since it was observed; observe again")
	// ErrNotActionable means the target exists but cannot take input now
	// (hidden, disabled, inert, covered by another element, off screen).
	ErrNotActionable = errors.New("element not actionable")
	// ErrURLNotAllowed means the URL's scheme is refused (javascript:, file:
	// and browser-internal pages unless allowed).
	ErrURLNotAllowed = errors.New("url not allowed")
	// ErrTextTooLong means the text to type exceeds MaxTypeLength.
	ErrTextTooLong = errors.New("text too long")
	// ErrOffscreen means a click_at point lies outside the viewport.
	ErrOffscreen = errors.New("point outside the viewport")
	// ErrNoFocus means nothing on the page has keyboard focus.
	ErrNoFocus = errors.New("no element has focus")
	// ErrBadArgument means an action's arguments are malformed.
	ErrBadArgument = errors.New("bad argument")
	// ErrNoHistory means the tab has no history entry to go back or
	// forward to; it comes wrapped with ErrBadArgument.
	ErrNoHistory = errors.New("no history entry")
	// ErrUnresponsive means the page stopped answering (a busy loop or a
	// hung renderer) after the input was sent.
	ErrUnresponsive = errors.New("page not responding")
	// ErrCondition means a wait or batch check did not hold in time.
	ErrCondition = errors.New("condition not met")
)

// LeaseError is returned when a tab is leased to someone else. It wraps
// ErrTabLeased and names the holder, so the caller can say who to wait for.
type LeaseError struct {
	Tab    string
	Holder string
}

// Error names the tab and who holds it.
func (e *LeaseError) Error() string {
	return fmt.Sprintf("tab %s is leased by %s", e.Tab, e.Holder)
}

// Unwrap lets errors.Is match ErrTabLeased.
func (e *LeaseError) Unwrap() error { return ErrTabLeased }

// ActionError is returned when a target fails a pre-action check. Hit names
// the element found at the click point when the target was covered, and
// Layer is the ref of the layer it belongs to (a popup, a cookie banner, a
// chat bubble, a sticky header): ObserveOptions{Within: Layer} shows the
// controls that close or answer it, so a caller can get it out of the way
// without looking at the whole page again.
type ActionError struct {
	Ref    string
	Reason string
	Hit    string
	Layer  string
	// Err is the sentinel matched by errors.Is: ErrNotActionable, or
	// ErrStaleRef when the element is gone.
	Err error
}

// Error names the ref, why it cannot take input, and what covers it.
func (e *ActionError) Error() string {
	if e.Hit != "" {
		return fmt.Sprintf("%s: %s by %s", e.Ref, e.Reason, e.Hit)
	}
	return fmt.Sprintf("%s: %s", e.Ref, e.Reason)
}

// Unwrap lets errors.Is match the sentinel (ErrNotActionable by default).
func (e *ActionError) Unwrap() error {
	if e.Err != nil {
		return e.Err
	}
	return ErrNotActionable
}

// Sentinels of what a page asks of the browser.
var (
	// ErrDialogOpen means a JavaScript dialog is open on the tab and held
	// for its holder: the page can do nothing until it is answered (or the
	// tab navigates away). See DialogError.
	ErrDialogOpen = errors.New("a dialog is open")
	// ErrNoDialog means an answer was given with no dialog open.
	ErrNoDialog = errors.New("no dialog is open")
	// ErrNoChallenge means credentials were given with no site asking.
	ErrNoChallenge = errors.New("no site is asking for a password")
)

// DialogError is returned by a call on a tab whose page is blocked by a
// held JavaScript dialog: the renderer runs nothing until it is answered,
// so an observation or action would only hang. It wraps ErrDialogOpen.
type DialogError struct {
	Dialog Dialog
}

// Error names the dialog and what it asks.
func (e *DialogError) Error() string {
	return e.Dialog.String() + "; answer it first"
}

// Unwrap lets errors.Is match ErrDialogOpen.
func (e *DialogError) Unwrap() error { return ErrDialogOpen }

// ErrAuthRequired means the tab's navigation waits for a password (see
// AuthError).
var ErrAuthRequired = errors.New("a site asks for a password")

// AuthError is returned by a call on a tab whose page is frozen while its
// navigation waits for the credentials a site asked for. It wraps
// ErrAuthRequired.
type AuthError struct {
	Challenge AuthChallenge
}

// Error names the site and what it asks.
func (e *AuthError) Error() string {
	return e.Challenge.String() + "; answer it first (or cancel it)"
}

// Unwrap lets errors.Is match ErrAuthRequired.
func (e *AuthError) Unwrap() error { return ErrAuthRequired }
