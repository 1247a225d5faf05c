// Package browser owns Chromium: finding and launching it (or connecting to a
// remote CDP endpoint), its tabs and their leases, page observation, verified
// trusted input, screenshots and screencast frames.
//
// It imports nothing else from Vroom, so it is usable on its own (`vroom
// observe`, in package app, is a thin command line over Observe and
// Screenshot). Every blocking call takes a context
// first; cancelling a lease's context releases the tab, cancelling the
// browser's closes Chromium.
//
// # Seeing a page
//
// Tab.Observe returns a ranked frontier of at most 40 controls: the open
// dialog's first (including those below its scroll fold), then the
// viewport's, then the nearest ones outside it, with a count of every
// candidate so a short list is never mistaken for the whole page. Each
// control has a short ref (e17) that survives a framework replacing the
// element with an equivalent one. Observation.Compact is the
// one-line-per-control form for a model; the struct marshals to JSON for a
// UI. Password, card, CVV and one-time-code values are always "***".
//
// The walk runs in an isolated world of every frame (shadow roots, same- and
// cross-origin iframes, including cross-site ones that site isolation puts
// in another process, attached as targets of their own), keeps refs in a WeakMap rather than attributes (so
// observing never mutates the page), and reads geometry from an
// IntersectionObserver instead of forcing a layout query per element.
//
// Tab.Changes reports what changed since an earlier observation version,
// against up to eight baselines per document within 2 MiB; when it cannot,
// it returns the full observation and says why.
//
// # Acting
//
// Tab.Do (and Click, Type, Select, Press, ClickAt, ...) checks the target
// (attached, visible, enabled, not inert, scrolled into view, and what a hit
// test finds at the click point, checked again after the pointer moves),
// sends trusted input through CDP's Input domain, waits for the page to
// settle (event-driven, bounded, with an optional Condition), and returns a
// Result saying whether anything observable changed. Tab.Batch runs several
// steps with checks between them and returns one observation.
//
// # What a page asks of the browser
//
// A JavaScript dialog, a file chooser, a download, a password (HTTP auth)
// and a new window are each an Event on Browser.Subscribe, a field of the
// Result of the action that raised them, and an answer for whoever holds
// the tab: AnswerDialog (ActDialog), an upload without a ref, SetDownloads
// and WaitDownload, AnswerAuth (ActAuth), the popup leased to the opener's
// holder. A dialog held for the holder, or a password the navigation waits
// for, blocks the page: calls on it fail at once with a *DialogError or an
// *AuthError instead of hanging, and the action that raised it returns at
// once. Permissions are set per origin ahead of a page's request
// (SetPermission): the protocol has no event for one.
//
// # Ownership
//
// A tab is leased by an owner for a whole read-think-act sequence
// (Tab.Lease); calls made with another owner (WithOwner) fail with a
// *LeaseError. A popup belongs to whoever holds its opener.
//
// # Failures
//
// A renderer crash, a tab closed elsewhere, a hung page or a dead browser
// fail pending and later calls with ErrTabCrashed, ErrTabClosed,
// ErrUnresponsive or a context deadline, and ErrBrowserClosed; Relaunch
// starts a new browser.
package browser
