package browser

import (
	"encoding/json"
	"net/url"

	"github.com/chromedp/cdproto/runtime"
)

// What the guard's wrapper refuses inside a page (sockets.go) makes no
// request for the Fetch domain to hold, so the page alone would know. The
// wrapper tells the browser through a binding, and the browser hands it
// to the guard's check as a Request already refused, the way a held
// request reaches it: the holder reports both alike.

// Refusal is what the guard's wrapper refused in a page.
type Refusal string

// The kinds of Refusal.
const (
	// RefusedSocket is a WebSocket to a host the tab's pages may not
	// open sockets to.
	RefusedSocket Refusal = "websocket"
	// RefusedServiceWorker is a service worker's registration.
	RefusedServiceWorker Refusal = "serviceworker"
	// RefusedSharedWorker is a shared worker, whose requests would be
	// its own target's, not the tab's.
	RefusedSharedWorker Refusal = "sharedworker"
	// RefusedWebRTC is a WebRTC connection.
	RefusedWebRTC Refusal = "webrtc"
	// RefusedWebTransport is a WebTransport session to a host the
	// tab's pages may not open sockets to.
	RefusedWebTransport Refusal = "webtransport"
)

// refusalBinding is the function the wrapper reports refusals through.
const refusalBinding = "__vroomRefused"

// What says what was refused, as the holder's result reads it.
func (k Refusal) What() string {
	switch k {
	case RefusedSocket:
		return "a WebSocket"
	case RefusedServiceWorker:
		return "a service worker's registration"
	case RefusedSharedWorker:
		return "a shared worker"
	case RefusedWebRTC:
		return "a WebRTC connection"
	case RefusedWebTransport:
		return "a WebTransport session"
	}
	return ""
}

// refusedInPage hands what the wrapper in one of the tab's pages refused
// to the guard's check, whose answer changes nothing: it was refused
// already. It runs in a session's read loop; the check runs on its own,
// counted as a held request so the action under way waits for it.
func (t *Tab) refusedInPage(payload string) {
	var p struct {
		Kind Refusal `json:"kind"`
		URL  string  `json:"url"`
	}
	// The binding is taken from the page before its scripts run, but a
	// payload is checked all the same: only a kind the wrapper sends,
	// and of its URL only the origin, which is where it would have gone.
	if json.Unmarshal([]byte(payload), &p) != nil || p.Kind.What() == "" {
		return
	}
	r := Request{Method: "GET", Script: true, Refused: p.Kind, Tab: t.id, Frame: t.id}
	if u, err := url.Parse(p.URL); err == nil && u.Host != "" {
		r.URL = u.Scheme + "://" + u.Host
	}
	t.auth.mu.Lock()
	g := t.icpt.guard
	if g != nil {
		g.wg.Add(1)
	}
	t.auth.mu.Unlock()
	if g == nil {
		return // the guard is gone: nobody to tell
	}
	t.held.Add(1)
	go func() {
		defer t.held.Add(-1)
		defer g.wg.Done()
		_ = g.check(g.ctx, r) // refused in the page whatever it answers
	}()
}

// onRefusal handles a binding call of a session's: the tab's, a frame's.
func (t *Tab) onRefusal(ev *runtime.EventBindingCalled) {
	if ev.Name == refusalBinding {
		t.refusedInPage(ev.Payload)
	}
}
