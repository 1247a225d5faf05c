package browser

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// dialogPage opens the invoices fixture under the test's own id (what it
// posts is kept by that id) and leases it, as an executor holds its tab.
func dialogPage(t *testing.T) (*Tab, string) {
	t.Helper()
	id := states.pageID(t)
	tab := openTab(t, "/jsdialogs.html?id="+id)
	if _, err := tab.Lease(tctx(t), "agent-"+id); err != nil {
		t.Fatal(err)
	}
	return tab, id
}

// clickNamed observes and clicks the first button or link named name.
func clickNamed(t *testing.T, tab *Tab, role, name string) *Result {
	t.Helper()
	ctx := ownerCtx(t, tab)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tab.Click(ctx, find(t, o, role, name).Ref)
	if err != nil {
		t.Fatalf("click %q: %v", name, err)
	}
	return r
}

// ownerCtx is the test's context acting as the tab's holder.
func ownerCtx(t *testing.T, tab *Tab) context.Context {
	return WithOwner(tctx(t), tab.Info().Owner)
}

func TestDialogAlertIsAcceptedAndReported(t *testing.T) {
	t.Parallel()
	tab, _ := dialogPage(t)
	r := clickNamed(t, tab, "button", "Save")
	if len(r.Dialogs) != 1 || r.Dialogs[0].Kind != DialogAlert || r.Dialogs[0].Message != "Saved" || r.Dialogs[0].By != DialogByPolicy {
		t.Fatalf("alert not reported: %+v", r.Dialogs)
	}
	if r.Dialog != nil || !strings.Contains(r.String(), `an alert "Saved" was accepted`) {
		t.Errorf("result: %s", r)
	}
	if got := eval[string](t, tab, `document.getElementById('status').textContent`); got != "saved" {
		t.Errorf("the page did not go on after the alert: status %q", got)
	}
}

func TestDialogConfirmIsHeldThenAnswered(t *testing.T) {
	t.Parallel()
	tab, id := dialogPage(t)
	ctx := ownerCtx(t, tab)
	events := testBrowser.Subscribe(ctx)
	start := time.Now()
	r := clickNamed(t, tab, "button", "Delete")
	if r.Dialog == nil || r.Dialog.Kind != DialogConfirm || r.Dialog.Message != "Delete invoice 77?" || !r.Dialog.Held {
		t.Fatalf("confirm not in the result: %s", r)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the click took %v with a dialog open", took)
	}
	ev := waitEvent(t, events, func(ev Event) bool { return ev.Kind == DialogOpened && ev.Tab.ID == tab.ID() })
	if ev.Dialog == nil || ev.Dialog.ID != r.Dialog.ID {
		t.Errorf("opened event: %+v", ev.Dialog)
	}
	if d, ok := tab.Dialog(); !ok || d.ID != r.Dialog.ID {
		t.Errorf("Tab.Dialog = %+v, %v", d, ok)
	}
	start = time.Now()
	if _, err := tab.Observe(ctx, ObserveOptions{}); !errors.Is(err, ErrDialogOpen) || !strings.Contains(err.Error(), "Delete invoice 77?") {
		t.Errorf("observe with the dialog open: %v", err)
	}
	if _, err := tab.Press(ctx, "Enter"); !errors.Is(err, ErrDialogOpen) {
		t.Errorf("press with the dialog open: %v", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("calls on a blocked page took %v", took)
	}
	ans, err := tab.AnswerDialog(ctx, DialogAnswer{Accept: true})
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Changed || len(ans.Dialogs) == 0 || ans.Dialogs[0].Answer == nil || !ans.Dialogs[0].Answer.Accept {
		t.Errorf("answer: %s", ans)
	}
	if got := states.get(id); !slices.Equal(got, []string{"deleted 77"}) {
		t.Errorf("server got %q", got)
	}
	waitEvent(t, events, func(ev Event) bool {
		return ev.Kind == DialogClosed && ev.Tab.ID == tab.ID() && ev.Dialog.By == DialogByHolder && ev.Dialog.Answer.Accept
	})
	// Dismissed, nothing is sent.
	if r := clickNamed(t, tab, "button", "Delete"); r.Dialog == nil || r.Dialog.Message != "Delete invoice 78?" {
		t.Fatalf("second confirm: %s", r)
	}
	if _, err := tab.AnswerDialog(ctx, DialogAnswer{}); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `document.getElementById('status').textContent`); got != "kept 78" {
		t.Errorf("status %q after dismissing", got)
	}
	if got := states.get(id); len(got) != 1 {
		t.Errorf("server got %q", got)
	}
	if _, err := tab.AnswerDialog(ctx, DialogAnswer{Accept: true}); !errors.Is(err, ErrNoDialog) {
		t.Errorf("answer with no dialog: %v", err)
	}
}

func TestDialogPromptAnswered(t *testing.T) {
	t.Parallel()
	tab, id := dialogPage(t)
	r := clickNamed(t, tab, "button", "Rename")
	if r.Dialog == nil || r.Dialog.Kind != DialogPrompt || r.Dialog.Default != "Invoice 77" {
		t.Fatalf("prompt not in the result: %s", r)
	}
	ans, err := tab.AnswerDialog(ownerCtx(t, tab), DialogAnswer{Accept: true, Text: "March rent"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ans.String(), `answered "March rent"`) {
		t.Errorf("answer: %s", ans)
	}
	if got := states.get(id); !slices.Equal(got, []string{"renamed 77 March rent"}) {
		t.Errorf("server got %q", got)
	}
}

func TestDialogLeaveSite(t *testing.T) {
	t.Parallel()
	tab, _ := dialogPage(t)
	ctx := ownerCtx(t, tab)
	clickNamed(t, tab, "button", "Edit")
	r := clickNamed(t, tab, "link", "Leave")
	if r.Dialog == nil || r.Dialog.Kind != DialogBeforeUnload {
		t.Fatalf("no leave-page dialog: %s", r)
	}
	// Navigating elsewhere is what the dialog asks about: it must be
	// answered, not skipped.
	if _, err := tab.Navigate(ctx, site.URL+"/checkbox.html"); !errors.Is(err, ErrDialogOpen) {
		t.Errorf("navigate past a leave-page dialog: %v", err)
	}
	st := time.Now()
	stay, err := tab.AnswerDialog(ctx, DialogAnswer{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(stay, time.Since(st))
	if stay.Navigated || !strings.Contains(stay.URL, "/jsdialogs.html") {
		t.Errorf("stayed: %s", stay)
	}
	if r := clickNamed(t, tab, "link", "Leave"); r.Dialog == nil {
		t.Fatalf("no leave-page dialog the second time: %s", r)
	}
	leave, err := tab.AnswerDialog(ctx, DialogAnswer{Accept: true})
	if err != nil {
		t.Fatal(err)
	}
	if !leave.Navigated || !strings.HasSuffix(leave.URL, "/form.html") {
		t.Errorf("left: %s", leave)
	}
}

// TestDialogAlertLoop: a page that opens alerts without end has the sixth
// held, the click returns, and navigating to another site ends the loop
// (one of the same site would load in the renderer the loop holds).
func TestDialogAlertLoop(t *testing.T) {
	t.Parallel()
	tab, _ := dialogPage(t)
	ctx := ownerCtx(t, tab)
	start := time.Now()
	r := clickNamed(t, tab, "button", "Remind me")
	if r.Dialog == nil || r.Dialog.Note == "" || len(r.Dialogs) != maxBurst {
		t.Fatalf("alert loop: %s", r)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the click took %v", took)
	}
	nav, err := tab.Navigate(ctx, crossSite()+"/checkbox.html")
	if err != nil {
		t.Fatal(err)
	}
	t.Log(nav)
	if !nav.Navigated || len(nav.Dialogs) == 0 || nav.Dialogs[0].By != DialogByNavigation {
		t.Errorf("navigate away: %s", nav)
	}
	if _, err := tab.Observe(ctx, ObserveOptions{}); err != nil {
		t.Errorf("observe after leaving the loop: %v", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the loop took %v to leave", took)
	}
}

// TestDialogAlertLoopSameSite: a page of the same site cannot load while
// the loop holds the renderer; the navigation says so within its bound,
// and closing the tab ends it.
func TestDialogAlertLoopSameSite(t *testing.T) {
	t.Parallel()
	tab, _ := dialogPage(t)
	ctx := ownerCtx(t, tab)
	if r := clickNamed(t, tab, "button", "Remind me"); r.Dialog == nil {
		t.Fatalf("alert loop: %s", r)
	}
	start := time.Now()
	same, err := tab.Navigate(ctx, site.URL+"/checkbox.html")
	if err != nil {
		t.Fatal(err)
	}
	if same.Navigated || !same.NavRequested || same.Dialog == nil {
		t.Errorf("navigate within the site: %s", same)
	}
	if again, err := tab.Navigate(ctx, site.URL+"/form.html"); err != nil || again.Navigated {
		t.Errorf("navigate again: %v %v", again, err)
	}
	if err := tab.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 4*testBrowser.opts.SettleTimeout {
		t.Errorf("leaving took %v", took)
	}
}

// TestDialogInterruptsAWait: a dialog a timer opens while the holder waits
// ends the wait at once, and a policy's timeout answers it.
func TestDialogInterruptsAWait(t *testing.T) {
	t.Parallel()
	tab, _ := dialogPage(t)
	ctx := ownerCtx(t, tab)
	events := testBrowser.Subscribe(ctx)
	clickNamed(t, tab, "button", "Idle check")
	start := time.Now()
	_, err := tab.Wait(ctx, WaitFor{Text: "never shown"}, 10*time.Second)
	var de *DialogError
	if !errors.As(err, &de) || de.Dialog.Message != "Still there?" {
		t.Fatalf("wait: %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the wait ended %v after the dialog", took)
	}
	if _, err := tab.AnswerDialog(ctx, DialogAnswer{Accept: true}); err != nil {
		t.Fatal(err)
	}
	// Nobody answers this time: the policy's timeout does.
	if err := tab.SetDialogPolicy(ctx, func(Dialog) DialogPlan {
		return DialogPlan{Hold: true, Timeout: 200 * time.Millisecond, Answer: DialogAnswer{Accept: true}}
	}); err != nil {
		t.Fatal(err)
	}
	clickNamed(t, tab, "button", "Idle check")
	waitEvent(t, events, func(ev Event) bool {
		return ev.Kind == DialogClosed && ev.Tab.ID == tab.ID() && ev.Dialog.By == DialogByTimeout
	})
	if got := eval[string](t, tab, `document.getElementById('status').textContent`); got != "still here" {
		t.Errorf("status %q", got)
	}
}

// TestDialogOnLoad: a page that asks as it loads is opened, not failed; the
// first look says what it asks.
func TestDialogOnLoad(t *testing.T) {
	t.Parallel()
	ctx := tctx(t)
	tab, err := testBrowser.Open(ctx, `data:text/html,<title>Ask</title><p id=p>before</p><script>document.getElementById('p').textContent = confirm('Use cookies?') ? 'yes' : 'no'</script>`)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tab.Close(context.Background()) })
	if _, err := tab.Observe(ctx, ObserveOptions{}); !errors.Is(err, ErrDialogOpen) {
		t.Fatalf("observe: %v", err)
	}
	r, err := tab.AnswerDialog(ctx, DialogAnswer{Accept: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `document.getElementById('p').textContent`); got != "yes" {
		t.Errorf("page says %q after %s", got, r)
	}
}
