package browser

import (
	"slices"
	"strings"
	"testing"
)

// TestWindowSignInPopup: a sign-in popup is the click's result and an
// event on the opener, leased to the same holder; acting in it works; its
// closing itself is the last action's result and an event on the opener,
// and what it sent reaches the opener's server.
func TestWindowSignInPopup(t *testing.T) {
	t.Parallel()
	id := t.Name()
	tab := openTab(t, "/signin.html?id="+id)
	ctx := tctx(t)
	if _, err := tab.Lease(ctx, "agent-"+id); err != nil {
		t.Fatal(err)
	}
	ctx = ownerCtx(t, tab)
	events := testBrowser.Subscribe(ctx)
	r := clickNamed(t, tab, "button", "Sign in with Example ID")
	if len(r.Opened) != 1 || !strings.HasSuffix(r.Opened[0].URL, "/idp.html") || r.Opened[0].Opener != tab.ID() {
		t.Fatalf("click: %s", r)
	}
	ev := waitEvent(t, events, func(ev Event) bool { return ev.Kind == TabPopup && ev.Opener == tab.ID() })
	if ev.Tab.ID != r.Opened[0].ID || !ev.UserGesture || ev.Tab.Owner != "agent-"+id {
		t.Errorf("popup event: %+v", ev)
	}
	pop, err := testBrowser.Tab(r.Opened[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	o, err := pop.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pop.Type(ctx, find(t, o, "textbox", "Email").Ref, "ada@example.com", false); err != nil {
		t.Fatal(err)
	}
	done, err := pop.Click(ctx, find(t, o, "button", "Continue").Ref)
	if err != nil {
		t.Fatalf("the click that closes the popup: %v", err)
	}
	if !done.Closed || !strings.Contains(done.String(), "closed its own tab") {
		t.Errorf("continue: %s", done)
	}
	waitEvent(t, events, func(ev Event) bool { return ev.Kind == TabClosed && ev.Tab.ID == pop.ID() && ev.Opener == tab.ID() })
	w, err := tab.Wait(ctx, WaitFor{Text: "Signed in as ada@example.com"}, 0)
	if err != nil || !w.Met {
		t.Fatalf("opener: %v %v", w, err)
	}
	if _, err := tab.Wait(ctx, WaitFor{}, 0); err != nil {
		t.Fatal(err)
	}
	if got := states.get(id); !slices.Equal(got, []string{"signed in ada@example.com"}) {
		t.Errorf("server got %q", got)
	}
}

// TestWindowKinds: a link with a target, a form with a target and
// window.open with noopener each open a tab the action reports, leased to
// the opener's holder.
func TestWindowKinds(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/signin.html?id="+t.Name())
	ctx := tctx(t)
	owner := "agent-" + t.Name()
	if _, err := tab.Lease(ctx, owner); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ role, name string }{
		{"link", "Terms (new tab)"}, {"button", "Search in a new tab"}, {"button", "Help (no opener)"},
	} {
		r := clickNamed(t, tab, c.role, c.name)
		if len(r.Opened) != 1 || r.Opened[0].Owner != owner || !strings.Contains(r.Opened[0].URL, "/inner.html") {
			t.Errorf("%s: %s", c.name, r)
			continue
		}
		pop, err := testBrowser.Tab(r.Opened[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pop.Close(ownerCtx(t, tab)) })
	}
}
