package runner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/browser"
)

func newTabs(t *testing.T) *Tabs {
	t.Helper()
	needBrowser(t)
	ctx, cancel := context.WithCancel(context.Background())
	p := NewTabs(ctx, testBrowser, nil, browser.ObserveOptions{})
	t.Cleanup(func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		p.CloseOpened(cctx)
		cancel()
	})
	return p
}

// TestTabsLease: an executor's tab is leased to it for its whole life:
// nobody else can act in it or attach it (the error names the holder);
// released, it stays open and another agent can attach it.
func TestTabsLease(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	p := newTabs(t)
	ctx := apptest.Context(t)
	a, err := p.Open(ctx, "agent 1", s.URL+"/quote.html")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Observe(ctx); err != nil {
		t.Fatal(err)
	}
	bt, err := testBrowser.Tab(a.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bt.Observe(browser.WithOwner(ctx, "user"), browser.ObserveOptions{}); !errors.Is(err, browser.ErrTabLeased) {
		t.Fatalf("the person acted in a leased tab: %v", err)
	}
	_, err = p.Attach(ctx, "agent 2", a.ID())
	if !errors.Is(err, browser.ErrTabLeased) || !strings.Contains(err.Error(), "agent 1") {
		t.Fatalf("attach of a leased tab: %v", err)
	}
	p.Release(a, "agent 1")
	if _, err := bt.Observe(browser.WithOwner(ctx, "user"), browser.ObserveOptions{}); err != nil {
		t.Fatalf("released tab: %v", err)
	}
	b, err := p.Attach(ctx, "agent 2", a.ID())
	if err != nil {
		t.Fatal(err)
	}
	obs, err := b.Observe(ctx)
	if err != nil || !strings.Contains(obs.Text, "Get quote") {
		t.Fatalf("%v %+v", err, obs)
	}
	p.Release(b, "agent 2")
	if _, err := p.Attach(ctx, "agent 3", "no-such-tab"); !errors.Is(err, browser.ErrTabClosed) {
		t.Fatalf("attach of a missing tab: %v", err)
	}
	if ids := p.Opened(); len(ids) != 1 || ids[0] != a.ID() {
		t.Fatalf("opened %v", ids)
	}
	if err := p.CloseOpened(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := testBrowser.Tab(a.ID()); !errors.Is(err, browser.ErrTabClosed) {
		t.Fatalf("tab open after CloseOpened: %v", err)
	}
}

// TestTabsLeaseMuted: a leased tab is muted: the room is one voice.
func TestTabsLeaseMuted(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	p := newTabs(t)
	ctx := apptest.Context(t)
	a, err := p.Open(ctx, "agent 1", s.URL+"/quote.html")
	if err != nil {
		t.Fatal(err)
	}
	bt, err := testBrowser.Tab(a.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !bt.Muted() {
		t.Error("an agent's tab plays sound")
	}
}
