package browser

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// listener is a server that counts the connections it accepts and records
// the paths asked of it.
func listener(t *testing.T) (srv *httptest.Server, conns *atomic.Int32, paths func() []string) {
	t.Helper()
	conns = new(atomic.Int32)
	var mu sync.Mutex
	var seen []string
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.WriteHeader(http.StatusNoContent)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, conns, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string{}, seen...)
	}
}

// TestNoConnectionsWithoutRequests: a guarded page's hints — preconnect
// and dns-prefetch to host names carrying data, a speculation rule's
// prefetch and prerender — open no connection to the host they name
// (Chromium predicts nothing in a launched profile); the page's own
// fetch there, made after them, is the one connection accepted.
func TestNoConnectionsWithoutRequests(t *testing.T) {
	t.Parallel()
	srv, conns, paths := listener(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	tab, ctx := openURL(t, site.URL+"/")
	stop, err := tab.Guard(ctx, func(context.Context, Request) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	eval[any](t, tab, fmt.Sprintf(`(async () => {
  for (const [rel, host] of [['preconnect', 'jordan-lee-example-com'], ['dns-prefetch', 'tr0ub4dor-and-3'], ['preconnect', '127.0.0.1']]) {
    const l = document.createElement('link'); l.rel = rel; l.href = 'http://' + host + (host.includes('.') ? '' : '.localhost') + ':%[1]s/'; document.head.appendChild(l);
  }
  const s = document.createElement('script'); s.type = 'speculationrules';
  s.textContent = JSON.stringify({prefetch: [{source: 'list', urls: ['http://127.0.0.1:%[1]s/spec-prefetch']}], prerender: [{source: 'list', urls: ['http://127.0.0.1:%[1]s/spec-prerender']}]});
  document.head.appendChild(s);
  await fetch('/inner.html');
  await fetch('http://127.0.0.1:%[1]s/after');
  return 1; })()`, port))
	if got := paths(); len(got) != 1 || got[0] != "/after" {
		t.Errorf("the host was asked %q, want the page's fetch alone", got)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("the host accepted %d connections, want the page's fetch's alone", n)
	}
}

// TestStopPredictionKeepsPreferences: the launched profile's preferences
// predict nothing, and keep what was there.
func TestStopPredictionKeepsPreferences(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "Default", "Preferences")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"net":{"other":true},"profile":{"name":"Jordan"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := stopPrediction(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"network_prediction_options":2`, `"other":true`, `"name":"Jordan"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("preferences %s lack %s", b, want)
		}
	}
	if err := os.WriteFile(path, []byte(`{not json`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := stopPrediction(dir); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("a broken file: %v, want an error naming it", err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{not json` {
		t.Errorf("a broken file was changed to %s", b)
	}
}
