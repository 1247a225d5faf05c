package browser

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// guardWait bounds answering a held request after its check: the tab may
// be closing, and nothing else would end the call.
const guardWait = 5 * time.Second

// allPattern pauses every request a guarded tab sends: documents, and
// what its pages fetch, post, beacon, stream, prefetch, or load by markup
// (images, stylesheets and their @imports and url()s, fonts, media), any
// of which can carry data off in its URL or body.
var allPattern = &fetch.RequestPattern{URLPattern: "*", RequestStage: fetch.RequestStageRequest}

// Request is a request a guarded tab is about to send: a document (a
// navigation, a form's submission, the next hop of a redirect, in the tab,
// one of its frames or a window it opened), or any other its pages send
// (fetch, XHR, a beacon, an image, a stylesheet).
type Request struct {
	URL    string
	Method string
	// Script is set for a request that is not a document: a page's
	// script or markup sent it.
	Script bool
	// Body is a POST's data as sent (a form's fields, URL-encoded).
	Body string
	// Redirect is set for a redirect's next hop.
	Redirect bool
	// Frame is the frame that loads the document; Tab's id for its top
	// frame.
	Frame string
	// Tab is the tab that sends it: the guarded one, or a window its
	// pages opened, which inherits its guard.
	Tab string
	// Refused is set for what the guard's wrapper refused in the page
	// itself (a socket elsewhere, a service worker, WebRTC): no request
	// was made, and the check's answer changes nothing; it is told so
	// its holder can report it as a refusal. URL is then where it would
	// have gone (an origin), or empty.
	Refused Refusal
	// Masked are the masked fields' values the tab's documents held when
	// an action last read them (Tab.Masked), the one under way included:
	// what the request may not carry elsewhere.
	Masked []string
}

// Guard holds every request of the tab until check answers:
// nil lets it go on; an error stops it, answered "204 No Content" so the
// browser ends the navigation and the page stays where it was (no error
// page for the agent to read), and a script gets an empty answer. Requests are checked concurrently, each in
// its own goroutine, so a check that waits for a person holds only its
// request, never the tab's events. stop removes the guard; it is safe to
// call more than once. Guard is for the tab's holder: it checks the lease.
//
// The guard covers what the tab's pages open: the requests of its
// cross-site frames that run in their own process, and of every window
// they open (a popup, a link or form with a target), held from its first
// navigation (targets.go). A guarded tab's pages open WebSockets only to
// their own host and those AllowSockets adds, register no service worker
// and have no WebRTC (sockets.go).
func (t *Tab) Guard(ctx context.Context, check func(ctx context.Context, r Request) error) (stop func(), err error) {
	cctx, cancel, err := t.beginTab(ctx)
	if err != nil {
		return nil, fmt.Errorf("guard %s: %w", t.id, err)
	}
	defer cancel()
	gctx, end := context.WithCancel(ctx)
	g := &guardState{ctx: gctx, check: check, tabs: []*Tab{t}}
	patterns := []*fetch.RequestPattern{allPattern}
	if err := t.setGuard(cctx, g, patterns); err != nil {
		end()
		return nil, fmt.Errorf("guard %s: %w", t.id, t.fail(cctx, err))
	}
	// Each page keeps its own host's sockets; other hosts' are refused
	// (sockets.go).
	if err := t.applySockets(cctx); err != nil {
		end()
		_ = t.dropGuard(cctx, g) // best effort: the guard is failing to install anyway
		return nil, fmt.Errorf("guard %s: sockets: %w", t.id, t.fail(cctx, err))
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			end()
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), guardWait)
			defer cancel()
			// The checks under way end with the guard's context; the
			// other requests are no longer paused after, and documents
			// go on at once. The windows that inherited it lose it too.
			for _, gt := range g.carriers() {
				if gt != t && gt.dead.Err() != nil {
					continue // a window that closed
				}
				if err := gt.dropGuard(dctx, g); err != nil && gt.dead.Err() == nil {
					t.b.opts.Logf("guard %s: disable: %v", gt.id, err)
				}
			}
		})
	}, nil
}

// guardState is an installed guard: its check, the context its checks run
// in, the checks under way, and the tabs it is on (the guarded one and
// the windows opened from it).
type guardState struct {
	ctx   context.Context
	check func(ctx context.Context, r Request) error
	wg    sync.WaitGroup

	mu   sync.Mutex
	tabs []*Tab
}

// carriers are the tabs the guard is on.
func (g *guardState) carriers() []*Tab {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.tabs)
}

// shareGuard puts the opener's guard, if it has one, on p, a window its
// page opened, before p's first request: the same check, the same
// socket hosts. Caller is adopt, before p is attached.
func (t *Tab) shareGuard(p *Tab) {
	t.auth.mu.Lock()
	g, patterns, hosts := t.icpt.guard, t.icpt.patterns, slices.Clone(t.icpt.socks.hosts)
	t.auth.mu.Unlock()
	if g == nil {
		return
	}
	g.mu.Lock()
	g.tabs = append(g.tabs, p)
	g.mu.Unlock()
	p.auth.mu.Lock()
	p.icpt.guard, p.icpt.patterns, p.icpt.socks.hosts = g, patterns, hosts
	p.auth.mu.Unlock()
}

// guarded reports whether a guard is on the tab.
func (t *Tab) guarded() bool {
	t.auth.mu.Lock()
	defer t.auth.mu.Unlock()
	return t.icpt.guard != nil
}

// answer checks one held request and lets it go or stops it.
func (t *Tab) answer(ctx context.Context, sess *chromedp.Target, ev *fetch.EventRequestPaused, check func(ctx context.Context, r Request) error) {
	r := requestOf(ev, t.id)
	r.Masked = t.Masked()
	t.held.Add(1)
	defer t.held.Add(-1)
	// A window's first requests wait for the rest of its set-up.
	select {
	case <-t.ready:
	case <-t.dead.Done():
	}
	err := check(ctx, r)
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), guardWait)
	defer cancel()
	if err == nil {
		_, err = cdp.Call(actx, sess, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
	} else {
		_, err = cdp.Call(actx, sess, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: 204})
	}
	if err != nil && t.b.opts.Logf != nil {
		t.b.opts.Logf("guard %s: answer %s: %v", t.id, r.URL, err)
	}
}

// requestOf is the request a paused event holds, sent by the tab tab.
func requestOf(ev *fetch.EventRequestPaused, tab string) Request {
	r := Request{URL: ev.Request.URL + ev.Request.URLFragment, Method: ev.Request.Method, Tab: tab,
		Redirect: ev.RedirectedRequestID != "", Frame: string(ev.FrameID), Script: ev.ResourceType != network.ResourceTypeDocument}
	for _, e := range ev.Request.PostDataEntries {
		r.Body += string(e.Bytes)
	}
	return r
}

// Secret is a value of the person's the tab holds.
type Secret struct {
	// What says what it is: "a cookie of example.com", "a masked field's value".
	What  string
	Value string
	// Cookie marks a cookie's value.
	Cookie bool
}

// Secrets returns what the tab holds of the person's that no page may send
// elsewhere: the cookies of hosts (host or host:port patterns) and the
// values of the page's masked fields (those the tab's last action read
// before its input, else read now). It does not check the lease: the
// guard asks while a request is held, inside the holder's action.
func (t *Tab) Secrets(ctx context.Context, hosts []string) ([]Secret, error) {
	ctx, cancel := context.WithTimeout(ctx, guardWait)
	defer cancel()
	// The two reads go together: the fields' is the page's, the cookies'
	// the browser's.
	type read struct {
		vals []string
		err  error
	}
	masked := make(chan read, 1)
	go func() {
		vals, err := t.maskedValues(ctx)
		masked <- read{vals, err}
	}()
	out, err := t.cookieSecrets(ctx, hosts)
	m := <-masked
	if err != nil {
		return nil, err
	}
	if m.err != nil {
		return out, m.err
	}
	for _, v := range m.vals {
		out = append(out, Secret{What: "a masked field's value", Value: v})
	}
	return out, nil
}

// cookieSecrets are the cookies of hosts (host or host:port patterns).
func (t *Tab) cookieSecrets(ctx context.Context, hosts []string) ([]Secret, error) {
	var urls []string
	for _, h := range hosts {
		host := strings.TrimPrefix(h, "*.")
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		urls = append(urls, "http://"+host+"/", "https://"+host+"/")
	}
	if len(urls) == 0 {
		return nil, nil
	}
	res, err := cdp.Call(ctx, t.target(), network.GetCookies, network.GetCookiesParams{URLs: urls})
	if err != nil {
		return nil, fmt.Errorf("secrets of %s: cookies: %w", t.id, t.fail(ctx, err))
	}
	var out []Secret
	for _, c := range res.Cookies {
		out = append(out, Secret{What: "a cookie of " + strings.TrimPrefix(c.Domain, "."), Value: c.Value, Cookie: true})
	}
	return out, nil
}
