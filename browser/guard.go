package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
)

// guardWait bounds answering a held request after its check: the tab may
// be closing, and nothing else would end the call.
const guardWait = 5 * time.Second

// scriptKinds are the requests a page's script can carry data off with:
// fetch and XHR bodies, beacons, event streams, and the URL of an image or
// script it adds. Stylesheets, fonts and media are left alone: a page's
// own markup loads them.
func scriptKinds() []network.ResourceType {
	return []network.ResourceType{
		network.ResourceTypeXHR, network.ResourceTypeFetch, network.ResourceTypePing,
		network.ResourceTypeEventSource, network.ResourceTypeImage, network.ResourceTypeScript,
		network.ResourceTypeOther,
	}
}

// Request is a request a guarded tab is about to send: a document (a
// navigation, a form's submission, the next hop of a redirect, in the tab
// or one of its frames), or one a page's script sends (fetch, XHR, a
// beacon, an image or script it adds).
type Request struct {
	URL    string
	Method string
	// Script is set for a request a page's script sent, not a document.
	Script bool
	// Body is a POST's data as sent (a form's fields, URL-encoded).
	Body string
	// Redirect is set for a redirect's next hop.
	Redirect bool
	// Frame is the frame that loads the document; the tab's id for the
	// top frame.
	Frame string
}

// Guard holds every document request of the tab, and every request its
// pages' scripts can send data with (scriptKinds), until check answers:
// nil lets it go on; an error stops it, answered "204 No Content" so the
// browser ends the navigation and the page stays where it was (no error
// page for the agent to read), and a script gets an empty answer. Requests are checked concurrently, each in
// its own goroutine, so a check that waits for a person holds only its
// request, never the tab's events. stop removes the guard; it is safe to
// call more than once. Guard is for the tab's holder: it checks the lease.
//
// A guarded tab's pages open WebSockets only to their own host and those
// AllowSockets adds (sockets.go). Cross-site
// iframes running in their own process and popups are other targets,
// whose requests this guard does not see.
func (t *Tab) Guard(ctx context.Context, check func(ctx context.Context, r Request) error) (stop func(), err error) {
	cctx, cancel, err := t.beginTab(ctx)
	if err != nil {
		return nil, fmt.Errorf("guard %s: %w", t.id, err)
	}
	defer cancel()
	gctx, end := context.WithCancel(ctx)
	g := &guardState{ctx: gctx, check: check}
	patterns := []*fetch.RequestPattern{docPattern}
	for _, k := range scriptKinds() {
		patterns = append(patterns, &fetch.RequestPattern{URLPattern: "*", ResourceType: k, RequestStage: fetch.RequestStageRequest})
	}
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
			// script requests are no longer paused after, and documents
			// go on at once.
			if err := t.dropGuard(dctx, g); err != nil && t.b.opts.Logf != nil {
				t.b.opts.Logf("guard %s: disable: %v", t.id, err)
			}
		})
	}, nil
}

// guardState is an installed guard: its check, the context its checks run
// in, and the checks under way.
type guardState struct {
	ctx   context.Context
	check func(ctx context.Context, r Request) error
	wg    sync.WaitGroup
}

// answer checks one held request and lets it go or stops it.
func (t *Tab) answer(ctx context.Context, ev *fetch.EventRequestPaused, check func(ctx context.Context, r Request) error) {
	r := Request{URL: ev.Request.URL + ev.Request.URLFragment, Method: ev.Request.Method,
		Redirect: ev.RedirectedRequestID != "", Frame: string(ev.FrameID), Script: ev.ResourceType != network.ResourceTypeDocument}
	for _, e := range ev.Request.PostDataEntries {
		r.Body += string(e.Bytes)
	}
	t.held.Add(1)
	defer t.held.Add(-1)
	err := check(ctx, r)
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), guardWait)
	defer cancel()
	if err == nil {
		_, err = cdp.Call(actx, t.target(), fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
	} else {
		_, err = cdp.Call(actx, t.target(), fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: 204})
	}
	if err != nil && t.b.opts.Logf != nil {
		t.b.opts.Logf("guard %s: answer %s: %v", t.id, r.URL, err)
	}
}

// Secret is a value of the person's the tab holds.
type Secret struct {
	// What says what it is: "a cookie of example.com", "a masked field's value".
	What  string
	Value string
	// Cookie marks a cookie's value.
	Cookie bool
}

// maskedValuesJS reads the values of the fields observations mask.
const maskedValuesJS = `(() => {
  const out = [];
  for (const el of document.querySelectorAll('input')) {
    const t = (el.getAttribute('type') || '').toLowerCase();
    const ac = el.getAttribute('autocomplete') || '';
    if ((t === 'password' || /(cc-number|cc-csc|cc-exp|one-time-code|current-password|new-password)/i.test(ac)) && el.value) out.push(el.value);
  }
  return out;
})()`

// Secrets returns what the tab holds of the person's that no page may send
// elsewhere: the cookies of hosts (host or host:port patterns) and the
// values of the page's masked fields. It does not check the lease: the
// guard asks while a request is held, inside the holder's action.
func (t *Tab) Secrets(ctx context.Context, hosts []string) ([]Secret, error) {
	ctx, cancel := context.WithTimeout(ctx, guardWait)
	defer cancel()
	var urls []string
	for _, h := range hosts {
		host := strings.TrimPrefix(h, "*.")
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		urls = append(urls, "http://"+host+"/", "https://"+host+"/")
	}
	var out []Secret
	if len(urls) > 0 {
		res, err := cdp.Call(ctx, t.target(), network.GetCookies, network.GetCookiesParams{URLs: urls})
		if err != nil {
			return nil, fmt.Errorf("secrets of %s: cookies: %w", t.id, t.fail(ctx, err))
		}
		for _, c := range res.Cookies {
			out = append(out, Secret{What: "a cookie of " + strings.TrimPrefix(c.Domain, "."), Value: c.Value, Cookie: true})
		}
	}
	res, err := cdp.Call(ctx, t.target(), runtime.Evaluate, runtime.EvaluateParams{Expression: maskedValuesJS, ReturnByValue: new(true), Silent: new(true)})
	if err != nil {
		return out, fmt.Errorf("secrets of %s: masked fields: %w", t.id, t.fail(ctx, err))
	}
	var vals []string
	if res.ExceptionDetails == nil && res.Result != nil && json.Unmarshal(res.Result.Value, &vals) == nil {
		for _, v := range vals {
			out = append(out, Secret{What: "a masked field's value", Value: v})
		}
	}
	return out, nil
}
