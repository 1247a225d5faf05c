package browser

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRemoteCheckEndpoint: the address forms a remote browser is given
// by, and the ones refused with a reason.
func TestRemoteCheckEndpoint(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"ws://127.0.0.1:9222/devtools/browser/abc", "wss://farm.example?token=k", "http://grid:4444", "https://h/chromium?apiKey=x"} {
		if err := CheckEndpoint(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for raw, want := range map[string]string{"": "empty", "ftp://h": "want ws://", "ws://": "has no host", "ws://h/#x": "fragment", "127.0.0.1:9222": "want ws://"} {
		err := CheckEndpoint(raw)
		if !errors.Is(err, ErrBadEndpoint) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", raw, err, want)
		}
	}
}

// TestRemoteEndpointName: credentials never show.
func TestRemoteEndpointName(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"wss://cloud.example/chromium?apiKey=s3cret&stealth=true": "wss://cloud.example/chromium?apiKey=***&stealth=true",
		"ws://u:pw@h:3000?token=s3cret":                           "ws://u:***@h:3000?token=***",
		"http://127.0.0.1:9222":                                   "http://127.0.0.1:9222",
	} {
		if got := EndpointName(raw); got != want {
			t.Errorf("%s: %s, want %s", raw, got, want)
		}
	}
}

// TestRemoteResolve: an http(s) address is asked /json/version under its
// path with its query; the WebSocket it names gets the public host back
// when the server named a loopback one, the token, and wss for https.
func TestRemoteResolve(t *testing.T) {
	t.Parallel()
	var asked string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = r.URL.String()
		if r.URL.Path == "/bad/json/version" {
			w.Write([]byte(`{"Browser":"x"}`))
			return
		}
		w.Write([]byte(`{"webSocketDebuggerUrl":"ws://0.0.0.0:3000/devtools/browser/b1"}`))
	}))
	defer srv.Close()
	ctx := context.Background()
	ws, err := ResolveEndpoint(ctx, srv.URL+"/farm?token=k1", nil)
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	if want := "ws://" + host + "/devtools/browser/b1?token=k1"; ws != want || asked != "/farm/json/version?token=k1" {
		t.Fatalf("resolved %s (asked %s), want %s", ws, asked, want)
	}
	if _, err := ResolveEndpoint(ctx, srv.URL+"/bad", nil); !errors.Is(err, ErrEndpointVersion) {
		t.Fatalf("no webSocketDebuggerUrl: %v", err)
	}
	if ws, err := ResolveEndpoint(ctx, "wss://h?token=k", nil); err != nil || ws != "wss://h?token=k" {
		t.Fatalf("a wss URL is dialled as given: %s, %v", ws, err)
	}
}
