package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
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
// own host is opened; one to another host is refused before its
// handshake leaves, until the holder allows that host; without the guard
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
	openSockets(t, tab, ownURL, leak)
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
