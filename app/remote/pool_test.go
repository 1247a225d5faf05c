package remote

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/app/internal/apptest"
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
	up := apptest.RemoteChromium(t)
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	var mu sync.Mutex
	dials := map[string]int{}
	const down = "ws://127.0.0.1:1/devtools/browser/gone" // nothing listens on port 1
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pool, err := New(ctx, []string{down, up.HTTP}, Options{
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
		tab, err := pool.Open(apptest.Context(t), "")
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
	pool, err := New(context.Background(), []string{"ws://127.0.0.1:1?token=s3cret", "http://127.0.0.1:1"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	err = pool.Connect(apptest.Context(t))
	if !errors.Is(err, ErrNoEndpoint) || !strings.Contains(err.Error(), "token=***") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("Connect: %v", err)
	}
	if _, err := pool.Open(apptest.Context(t), ""); !errors.Is(err, ErrNoEndpoint) {
		t.Fatalf("Open: %v", err)
	}
	if pool.Usable() != 0 {
		t.Fatalf("%d usable", pool.Usable())
	}
}
