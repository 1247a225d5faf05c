package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// A guarded tab's WebSockets, service workers, shared workers and
// WebRTC. Chromium's Fetch domain cannot pause a socket's handshake
// ("Unknown resource type in fetch filter"), the Network domain's request
// blocking lets handshakes through, a Content-Security-Policy added to a
// document's headers on the way is not read, and a document fulfilled
// whole loses its address (the page's own local sockets are then refused
// as from a public site). What a socket sends after it opens passes no
// hook the guard could hold. So the rule is on the constructor: every
// document of a guarded tab gets, before its scripts run, a WebSocket
// that throws a SecurityError for a host other than the document's own
// origin (host and port: the guard let it load) and those the holder
// allows (AllowSockets), and so do WebSocketStream and WebTransport; so
// does every dedicated worker, before its script (workers.go).
//
// The same script takes away what would send past the request guard. A
// service worker's own fetches are another target's, outliving the tab
// and shared by every tab of its origin: a guarded document may not
// register one, and the tab's requests bypass those registered before
// (Network.setBypassServiceWorker), so each is the page's and held. A
// shared worker's requests are its own target's too: a guarded document
// starts none. WebRTC sends over UDP (ICE, STUN, TURN, data channels)
// that no request hook sees, and a page needs none of it for an agent to
// read or fill it: RTCPeerConnection is gone from a guarded document. A
// browser-wide flag (a WebRTC IP policy) would reach the person's own
// tabs, which keep their calls. What the script refuses it tells the
// browser (refusals.go).

// socketHosts is where a guarded tab's sockets may go, under auth.mu.
type socketHosts struct {
	hosts   []string
	scripts map[*chromedp.Target]page.ScriptIdentifier // the installed wrapper, per session
	bypass  bool                                       // the tab's requests bypass service workers
}

// socketShimJS is the wrapper of a guarded tab's documents and
// dedicated workers; socketShim fills in its hosts.
//
//go:embed sockets.js
var socketShimJS string

// socketShim is the wrapper with hosts (a JSON array) allowed.
func socketShim(hosts []byte) string {
	return strings.Replace(socketShimJS, "HOSTS", string(hosts), 1)
}

// AllowSockets lets the guarded tab's documents open sockets to hosts
// (host, host:port or *.host patterns; a host without a port on any
// port), besides each document's own origin; the guard's removal
// forgets them. It does not check the lease: the holder calls it while
// its guard is installed.
func (t *Tab) AllowSockets(ctx context.Context, hosts []string) error {
	if !t.addSocketHosts(hosts) {
		return nil
	}
	if err := t.applySockets(ctx); err != nil {
		return fmt.Errorf("allow sockets on %s: %w", t.id, t.fail(ctx, err))
	}
	return nil
}

// addSocketHosts adds hosts to the allowed ones; false: nothing new.
func (t *Tab) addSocketHosts(hosts []string) bool {
	t.auth.mu.Lock()
	defer t.auth.mu.Unlock()
	added := false
	for _, h := range hosts {
		h = socketHost(h)
		if h != "" && !slices.Contains(t.icpt.socks.hosts, h) {
			t.icpt.socks.hosts = append(t.icpt.socks.hosts, h)
			added = true
		}
	}
	return added
}

// socketHost is the host of a host pattern or URL as the wrapper
// compares it, lower case: with its port when it names one (a URL's
// host), so another port of the same host is another origin's.
func socketHost(h string) string {
	if u, err := url.Parse(h); err == nil && u.Host != "" {
		h = u.Host
	}
	if _, _, err := net.SplitHostPort(h); err == nil {
		return strings.ToLower(h)
	}
	return strings.ToLower(strings.Trim(h, "[]"))
}

// applySockets installs the wrapper with the hosts of now on every
// session of the tab (its own and its frames'), for the documents to come
// and those loaded (which keep one wrapper, whose list is replaced), in
// place of the one before. Not while a navigation is held: the call waits
// on the page. A frame's session that fails is logged, as applyFetch.
func (t *Tab) applySockets(ctx context.Context) error {
	t.auth.mu.Lock()
	bypass := t.icpt.socks.bypass
	t.auth.mu.Unlock()
	if !bypass {
		if _, err := cdp.Call(ctx, t.target(), network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true}); err != nil {
			return err
		}
		t.auth.mu.Lock()
		t.icpt.socks.bypass = true
		t.auth.mu.Unlock()
	}
	for i, s := range t.sessions() {
		err := t.applySocketsOn(ctx, s)
		if i == 0 && err != nil {
			return err
		}
		if err != nil && t.b.opts.Logf != nil {
			t.b.opts.Logf("tab %s: a frame's sockets: %v", t.id, err)
		}
	}
	t.wrapWorkers(ctx)
	return nil
}

// applySocketsOn installs the wrapper on one session.
func (t *Tab) applySocketsOn(ctx context.Context, sess *chromedp.Target) error {
	t.auth.mu.Lock()
	list, err := json.Marshal(append([]string{}, t.icpt.socks.hosts...))
	prev := t.icpt.socks.scripts[sess]
	bound := t.icpt.bound[sess]
	t.auth.mu.Unlock()
	if err != nil {
		return err
	}
	// The binding first: a new document has it before the wrapper runs.
	if !bound {
		if _, err := cdp.Call(ctx, sess, runtime.AddBinding, runtime.AddBindingParams{Name: refusalBinding}); err != nil {
			return err
		}
		t.auth.mu.Lock()
		if t.icpt.bound == nil {
			t.icpt.bound = map[*chromedp.Target]bool{}
		}
		t.icpt.bound[sess] = true
		t.auth.mu.Unlock()
	}
	res, err := cdp.Call(ctx, sess, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: socketShim(list), RunImmediately: new(true),
	})
	if err != nil {
		return err
	}
	t.auth.mu.Lock()
	if t.icpt.socks.scripts == nil {
		t.icpt.socks.scripts = map[*chromedp.Target]page.ScriptIdentifier{}
	}
	t.icpt.socks.scripts[sess] = res.Identifier
	t.auth.mu.Unlock()
	if prev == "" {
		return nil
	}
	// The one before goes in the background: a document that starts
	// meanwhile runs both, the new one last, and keeps its list.
	go func() {
		rctx, cancel := context.WithTimeout(t.dead, t.b.opts.CallTimeout)
		defer cancel()
		if err := removeSocketScript(rctx, sess, prev); err != nil && rctx.Err() == nil {
			t.b.opts.Logf("tab %s: remove a socket wrapper: %v", t.id, err)
		}
	}()
	return nil
}

// removeSocketScript stops installing a wrapper in sess's new documents.
func removeSocketScript(ctx context.Context, sess *chromedp.Target, id page.ScriptIdentifier) error {
	if id == "" {
		return nil
	}
	_, err := cdp.Call(ctx, sess, page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: id})
	return err
}

// dropSockets forgets the allowed hosts and stops wrapping new documents'
// sockets; the tab's requests reach service workers again.
func (t *Tab) dropSockets(ctx context.Context) error {
	t.auth.mu.Lock()
	ids := t.icpt.socks.scripts
	t.icpt.socks = socketHosts{}
	t.auth.mu.Unlock()
	var first error
	for sess, id := range ids {
		if err := removeSocketScript(ctx, sess, id); err != nil && sess == t.target() {
			first = err
		}
	}
	if _, err := cdp.Call(ctx, t.target(), network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: false}); err != nil && first == nil {
		first = err
	}
	return first
}
