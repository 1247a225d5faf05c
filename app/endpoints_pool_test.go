package app

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/browser"
)

// fakeClock is the pool's clock, moved by the test.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestRemoteRetryBackoff: an endpoint that refuses connections is marked
// down and skipped — tabs go to the one up — until its backoff has passed
// on the pool's clock; then it is tried again, and the next wait doubles.
func TestRemoteRetryBackoff(t *testing.T) {
	up := startChromium(t)
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	var mu sync.Mutex
	dials := map[string]int{}
	const down = "ws://127.0.0.1:1/devtools/browser/gone" // nothing listens on port 1
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pool, err := NewEndpoints(ctx, []string{down, up.HTTP}, EndpointOptions{
		Now: clock.Now,
		Connect: func(ctx context.Context, raw string, o browser.Options) (*browser.Browser, error) {
			mu.Lock()
			dials[raw]++
			mu.Unlock()
			return browser.ConnectEndpoint(ctx, raw, o)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	open := func() {
		t.Helper()
		tab, err := pool.Open(tctx(t), "")
		if err != nil {
			t.Fatal(err)
		}
		if w := pool.Where(tab.ID()); w != up.HTTP {
			t.Fatalf("a tab opened in %q, want %q", w, up.HTTP)
		}
	}
	tried := func() int { mu.Lock(); defer mu.Unlock(); return dials[down] }
	open() // the first, least-loaded, is down: marked, and the tab goes on
	open()
	if n := tried(); n != 1 {
		t.Fatalf("the down endpoint was dialled %d times before its backoff passed, want 1", n)
	}
	st := pool.Status()[0]
	if st.Down == "" || !st.RetryAt.Equal(clock.Now().Add(2*time.Second)) {
		t.Fatalf("status of the down endpoint: %+v", st)
	}
	clock.advance(2 * time.Second)
	open()
	if n := tried(); n != 2 {
		t.Fatalf("after the backoff the down endpoint was dialled %d times in all, want 2", n)
	}
	if st := pool.Status()[0]; !st.RetryAt.Equal(clock.Now().Add(4 * time.Second)) {
		t.Fatalf("the second backoff ends %v, want 4 s from now", st.RetryAt.Sub(clock.Now()))
	}
	if st := pool.Status()[1]; st.Opened != 3 || !st.Connected {
		t.Fatalf("status of the endpoint up: %+v", st)
	}
}

// TestRemoteNoneReachable: with every endpoint down, Open and Connect say
// so (ErrNoEndpoint) and name each endpoint, with its token hidden.
func TestRemoteNoneReachable(t *testing.T) {
	t.Parallel()
	pool, err := NewEndpoints(context.Background(), []string{"ws://127.0.0.1:1?token=s3cret", "http://127.0.0.1:1"}, EndpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	err = pool.Connect(tctx(t))
	if !errors.Is(err, ErrNoEndpoint) || !strings.Contains(err.Error(), "token=***") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("Connect: %v", err)
	}
	if _, err := pool.Open(tctx(t), ""); !errors.Is(err, ErrNoEndpoint) {
		t.Fatalf("Open: %v", err)
	}
	if pool.Usable() != 0 {
		t.Fatalf("%d usable", pool.Usable())
	}
}

// TestRemoteSettingsAndFlags: a bad endpoint is an error naming the
// field (Settings: the previous file stays) or the flag.
func TestRemoteSettingsAndFlags(t *testing.T) {
	t.Parallel()
	st := DefaultSettings()
	st.Browser.Endpoints = []string{"ws://farm:3000?token=k", "ftp://nope"}
	err := st.Validate()
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "browser.endpoints[1]" || !strings.Contains(fe.Message, "ws://") {
		t.Fatalf("Validate: %v", err)
	}
	store := SettingsStore{Path: t.TempDir() + "/settings.json"}
	good := DefaultSettings()
	good.Browser.Endpoints = []string{"http://127.0.0.1:9222"}
	if err := store.Save(good); err != nil {
		t.Fatal(err)
	}
	if err := store.Save(st); err == nil {
		t.Fatal("saved settings with a bad endpoint")
	}
	if got, err := store.Load(); err != nil || len(got.Browser.Endpoints) != 1 || got.Browser.Endpoints[0] != "http://127.0.0.1:9222" {
		t.Fatalf("the previous settings did not stay: %+v, %v", got.Browser, err)
	}
	for _, tc := range []struct{ args, want string }{
		{"--browser ws:// task", "--browser: ws: has no host"},
		{"--browser chrome://x task", "--browser: chrome://x: want ws://"},
		{"--browser ws://a:1 --browser ws://a:1 task", "listed twice"},
	} {
		_, err := parseRunArgs(strings.Fields(tc.args), DefaultSettings(), &strings.Builder{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.args, err, tc.want)
		}
	}
	o, err := parseRunArgs([]string{"--browser", "local", "task"}, st, &strings.Builder{})
	if err != nil || len(o.Browsers) != 0 {
		t.Errorf("--browser local: %v, %v", o.Browsers, err)
	}
}
