// Package browser owns Chromium: finding and launching it (or connecting to a
// remote CDP endpoint), its tabs and their leases, page observation, verified
// trusted input, screenshots and screencast frames.
//
// It imports nothing else from Vroom, so it is usable on its own (see
// `vroom observe`). Every blocking call takes a context first; cancelling a
// tab's context releases the tab, cancelling the browser's closes Chromium.
package browser
