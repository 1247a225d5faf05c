package browser

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// authPage is a page linking to the fixture's staff area at origin,
// leased. The browser keeps credentials per origin and realm, so each
// test that signs in or cancels has an origin of its own.
func authPage(t *testing.T, origin string) (*Tab, string) {
	t.Helper()
	id := states.pageID(t)
	ctx := tctx(t)
	tab, err := testBrowser.Open(ctx, origin+"/inner.html")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tab.Close(WithOwner(context.Background(), "agent-"+id)) })
	if _, err := tab.Lease(ctx, "agent-"+id); err != nil {
		t.Fatal(err)
	}
	eval[any](t, tab, `document.body.insertAdjacentHTML('beforeend', '<p><a id="staff" href="/api/private?id=`+id+`">Staff area</a></p>'), null`)
	return tab, id
}

// TestAuthAskedAndAnswered: a link to a page behind basic auth returns at
// once with the site's challenge; a wrong password is asked again, the
// right one loads the page, and the server saw the sign-in.
func TestAuthAskedAndAnswered(t *testing.T) {
	t.Parallel()
	tab, id := authPage(t, site.URL)
	ctx := ownerCtx(t, tab)
	events := testBrowser.Subscribe(ctx)
	start := time.Now()
	r := clickNamed(t, tab, "link", "Staff area")
	if r.Auth == nil || r.Auth.Realm != "Staff only" || r.Auth.Scheme != "basic" || !strings.Contains(r.String(), "asks for a user name and password") {
		t.Fatalf("click: %s", r)
	}
	if took := time.Since(start); took > testBrowser.opts.SettleTimeout {
		t.Errorf("the click took %v", took)
	}
	waitEvent(t, events, func(ev Event) bool {
		return ev.Kind == AuthRequired && ev.Tab.ID == tab.ID() && ev.Auth.ID == r.Auth.ID
	})
	if got := tab.AuthChallenges(); len(got) != 1 {
		t.Errorf("waiting: %+v", got)
	}
	wrong, err := tab.AnswerAuth(ctx, AuthAnswer{Username: "ada", Password: "babbage"})
	if err != nil {
		t.Fatal(err)
	}
	if wrong.Auth == nil || wrong.Navigated {
		t.Errorf("a wrong password: %s", wrong)
	}
	right, err := tab.AnswerAuth(ctx, AuthAnswer{Username: "ada", Password: "lovelace"})
	if err != nil {
		t.Fatal(err)
	}
	if !right.Navigated || !strings.Contains(right.URL, "/api/private") {
		t.Errorf("the right password: %s", right)
	}
	ev := waitEvent(t, events, func(ev Event) bool {
		return ev.Kind == AuthAnswered && ev.Tab.ID == tab.ID() && ev.Auth.Answered == "credentials given"
	})
	if strings.Contains(ev.Auth.String(), "lovelace") {
		t.Errorf("the event carries the password: %s", ev.Auth)
	}
	if got := states.get(id); !slices.Equal(got, []string{"signed in ada"}) {
		t.Errorf("server got %q", got)
	}
	if _, err := tab.AnswerAuth(ctx, AuthAnswer{Cancel: true}); !errors.Is(err, ErrNoChallenge) {
		t.Errorf("an answer with nobody asking: %v", err)
	}
}

// TestAuthCancelled: cancelled by the holder, or by the policy when nobody
// answers, the site's refusal is the page.
func TestAuthCancelled(t *testing.T) {
	t.Parallel()
	tab, id := authPage(t, crossSite())
	ctx := ownerCtx(t, tab)
	clickNamed(t, tab, "link", "Staff area")
	r, err := tab.AnswerAuth(ctx, AuthAnswer{Cancel: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Navigated {
		t.Errorf("cancel: %s", r)
	}
	if w, err := tab.Wait(ctx, WaitFor{Text: "staff only"}, 0); err != nil || !w.Met {
		t.Errorf("refusal page: %v %v", w, err)
	}
	if _, err := tab.Do(ctx, Action{Kind: ActBack}); err != nil {
		t.Fatal(err)
	}
	if err := tab.SetAuthPolicy(ctx, func(AuthChallenge) AuthPlan {
		return AuthPlan{Answer: AuthAnswer{Cancel: true}, Wait: 100 * time.Millisecond}
	}); err != nil {
		t.Fatal(err)
	}
	eval[any](t, tab, `document.body.insertAdjacentHTML('beforeend', '<p><a href="/api/private?id=`+id+`">Staff area</a></p>'), null`)
	events := testBrowser.Subscribe(ctx)
	clickNamed(t, tab, "link", "Staff area")
	waitEvent(t, events, func(ev Event) bool {
		return ev.Kind == AuthAnswered && ev.Tab.ID == tab.ID() && ev.Auth.By == DialogByPolicy && ev.Auth.Answered == "cancelled"
	})
	if w, err := tab.Wait(ctx, WaitFor{Text: "staff only"}, 0); err != nil || !w.Met {
		t.Errorf("refusal page after the policy's cancel: %v %v", w, err)
	}
	if got := states.get(id); len(got) != 0 {
		t.Errorf("server got %q", got)
	}
}
