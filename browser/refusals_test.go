package browser

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/internal/testkit"
)

// refusalLog records the in-page refusals a guard is told of.
type refusalLog struct {
	mu   sync.Mutex
	seen []Request
}

func (l *refusalLog) check(_ context.Context, r Request) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.Refused != "" {
		l.seen = append(l.seen, r)
	}
	return nil
}

// guardLog guards tab with a check that lets everything through and
// keeps the refusals told, until the test ends.
func guardLog(t *testing.T, ctx context.Context, tab *Tab) *refusalLog {
	t.Helper()
	l := &refusalLog{}
	stop, err := tab.Guard(ctx, l.check)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return l
}

// kinds are the refusals told so far, each once.
func (l *refusalLog) kinds() []Refusal {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Refusal
	for _, r := range l.seen {
		if !slices.Contains(out, r.Refused) {
			out = append(out, r.Refused)
		}
	}
	return out
}

// count is how many refusals of kind k were told.
func (l *refusalLog) count(k Refusal) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, r := range l.seen {
		if r.Refused == k {
			n++
		}
	}
	return n
}

// of is the first refusal of kind k told.
func (l *refusalLog) of(k Refusal) Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.seen {
		if r.Refused == k {
			return r
		}
	}
	return Request{}
}

// TestGuardToldOfRefusalsInThePage: what the wrapper refuses in a guarded
// page — a socket elsewhere (a WebSocket, a WebSocketStream, a
// WebTransport), from the page, a dedicated worker and a worker's worker, a
// service worker's registration, a shared worker, WebRTC — is told to the
// guard's check as a Request already refused, with where it would have
// gone; no handshake reaches the other host, the page's own socket
// opens, and the page sees no binding to call.
func TestGuardToldOfRefusalsInThePage(t *testing.T) {
	t.Parallel()
	page, away, own, hits := socketSites(t)
	tab, ctx := openURL(t, page.URL+"/")
	l := guardLog(t, ctx, tab)
	if got := eval[string](t, tab, `typeof __vroomRefused`); got != "undefined" {
		t.Errorf("the page sees the binding: typeof is %q", got)
	}
	openSockets(t, tab, away+"/leak?p=1", page.URL+"/ws")
	// A worker's socket elsewhere, and its own worker's.
	socket := fmt.Sprintf(`try { new WebSocket(%q); postMessage('opened'); } catch (e) { postMessage(e.name + ':' + typeof self.__vroomRefused); }`, away+"/worker")
	nested := fmt.Sprintf(`const w = new Worker(URL.createObjectURL(new Blob([%q], {type: 'text/javascript'}))); w.onmessage = e => postMessage(e.data);`, socket)
	for _, src := range []string{socket, nested} {
		got := eval[string](t, tab, fmt.Sprintf(`new Promise(ok => {
  const w = new Worker(URL.createObjectURL(new Blob([%q], {type: 'text/javascript'})));
  w.onmessage = e => ok(e.data);
})`, src))
		if got != "SecurityError:undefined" {
			t.Errorf("a worker's socket elsewhere: %q, want a SecurityError and no binding", got)
		}
	}
	// The other constructors of sockets throw as WebSocket does.
	others := eval[string](t, tab, fmt.Sprintf(`(async () => {
  const out = [];
  try { new RTCPeerConnection(); } catch (e) {}
  try { new WebTransport(%[1]q); out.push('opened'); } catch (e) { out.push(e.name); }
  try { new WebSocketStream(%[2]q); out.push('opened'); } catch (e) { out.push(e.name); }
  try { new SharedWorker('/shared.js'); } catch (e) {}
  try { await navigator.serviceWorker.register('/sw.js'); } catch (e) {}
  return out.join(' '); })()`, strings.Replace(away, "ws://", "https://", 1)+"/wt", away+"/stream"))
	if others != "SecurityError SecurityError" {
		t.Errorf("a WebTransport and a WebSocketStream elsewhere: %q, want both refused", others)
	}
	want := []Refusal{RefusedSocket, RefusedWebRTC, RefusedSharedWorker, RefusedServiceWorker, RefusedWebTransport}
	testkit.WaitFor(t, 10*time.Second, "every refusal told", func() bool {
		k := l.kinds()
		for _, w := range want {
			if !slices.Contains(k, w) {
				return false
			}
		}
		return l.count(RefusedSocket) >= 3 // the page's and the workers'; the stream's is the page's socket's origin, told once

	})
	if r := l.of(RefusedSocket); r.URL != away || !r.Script || r.Tab != tab.ID() {
		t.Errorf("the socket's refusal: %+v, want its origin %s", r, away)
	}
	if r := l.of(RefusedServiceWorker); r.URL != page.URL {
		t.Errorf("the service worker's refusal: %+v, want %s", r, page.URL)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d handshakes reached the other host", n)
	}
	if own.Load() < 1 {
		t.Error("the page's own socket never opened")
	}
}

// TestGuardWrapsRunningWorkers: a dedicated worker that started before
// the guard, and the worker it starts after, refuse sockets elsewhere
// once the tab is guarded, and the guard is told.
func TestGuardWrapsRunningWorkers(t *testing.T) {
	t.Parallel()
	page, away, _, hits := socketSites(t)
	tab, ctx := openURL(t, page.URL+"/")
	try := fmt.Sprintf(`try { new WebSocket(%q); return 'opened'; } catch (e) { return e.name; }`, away+"/late")
	inner := fmt.Sprintf(`onmessage = () => postMessage((() => { %s })());`, try)
	outer := fmt.Sprintf(`onmessage = e => {
  if (e.data === 'self') { postMessage((() => { %s })()); return; }
  const w = new Worker(URL.createObjectURL(new Blob([%q], {type: 'text/javascript'})));
  w.onmessage = m => postMessage(m.data); w.postMessage('go');
};`, try, inner)
	eval[any](t, tab, fmt.Sprintf(`window.w = new Worker(URL.createObjectURL(new Blob([%q], {type: 'text/javascript'}))), 1`, outer))
	l := guardLog(t, ctx, tab)
	for _, what := range []string{"self", "nested"} {
		got := eval[string](t, tab, fmt.Sprintf(`new Promise(ok => { w.onmessage = e => ok(e.data); w.postMessage(%q); })`, what))
		if got != "SecurityError" {
			t.Errorf("%s: a socket elsewhere from a worker running before the guard: %q", what, got)
		}
	}
	testkit.WaitFor(t, 10*time.Second, "both refusals told", func() bool { return l.count(RefusedSocket) >= 2 })
	if n := hits.Load(); n != 0 {
		t.Errorf("%d handshakes reached the other host", n)
	}
}

// TestGuardWrapsWindowsItOpens: a window a guarded page opens, whose
// globals its script can use before the window's tab is set up (blank,
// or before its first page commits), refuses sockets elsewhere from the
// first, and after its page loads; the page sees no binding in it.
func TestGuardWrapsWindowsItOpens(t *testing.T) {
	t.Parallel()
	page, away, _, hits := socketSites(t)
	tab, ctx := openURL(t, page.URL+"/")
	l := guardLog(t, ctx, tab)
	got := eval[string](t, tab, fmt.Sprintf(`(async () => {
  const out = [];
  const sock = (w, name) => { try { new w.WebSocket(%[1]q + '/' + name); out.push(name + ':opened'); } catch (e) { out.push(name + ':' + e.name); } };
  const blank = window.open(), page = window.open('/ws-page');
  sock(blank, 'blank'); sock(page, 'early');
  for (let i = 0; i < 200 && !(page.location.pathname === '/ws-page' && page.document.readyState === 'complete'); i++) await new Promise(r => setTimeout(r, 50));
  sock(page, 'loaded');
  out.push('binding:' + typeof blank.__vroomRefused + ',' + typeof page.__vroomRefused);
  blank.close(); page.close();
  return out.join(' '); })()`, away))
	if want := "blank:SecurityError early:SecurityError loaded:SecurityError binding:undefined,undefined"; got != want {
		t.Errorf("the windows' sockets elsewhere: %q, want %q", got, want)
	}
	// Told once: the windows are the opener's origin's, whose wrapper
	// tells each origin refused once (a same-origin page keeps the blank
	// window's global, and its wrapper).
	testkit.WaitFor(t, 10*time.Second, "the refusal told", func() bool { return l.count(RefusedSocket) >= 1 })
	if n := hits.Load(); n != 0 {
		t.Errorf("%d handshakes reached the other host", n)
	}
}

// TestRefusalsToldOncePerDocument: a page retrying a socket elsewhere has
// it told once, not once a try.
func TestRefusalsToldOncePerDocument(t *testing.T) {
	t.Parallel()
	page, away, _, _ := socketSites(t)
	tab, ctx := openURL(t, page.URL+"/")
	l := guardLog(t, ctx, tab)
	eval[any](t, tab, fmt.Sprintf(`(() => { for (let i = 0; i < 20; i++) { try { new WebSocket(%q + '/retry?' + i); } catch (e) {} } return 1; })()`, away))
	// The page's own socket, opened after, marks the end of the tries.
	openSockets(t, tab, page.URL+"/ws", away+"/last")
	testkit.WaitFor(t, 10*time.Second, "the refusal told", func() bool { return l.count(RefusedSocket) >= 1 })
	if n := l.count(RefusedSocket); n != 1 {
		t.Errorf("told %d times, want once", n)
	}
}
