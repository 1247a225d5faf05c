package browser

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestFindQuery: a query searches the whole page (off-screen, inside a
// horizontal scroller of 5,000 buttons) by name, value and nearby text,
// and a click on what it found scrolls it into view itself.
func TestFindQuery(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/find.html")
	ctx := tctx(t)
	// A near one, inside the viewport but clipped by its scroller.
	o, err := tab.Observe(ctx, ObserveOptions{Query: "item 7"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Controls[0].Name != "Item 7" {
		t.Fatalf("the exact match ranks first among its group:\n%s", o.Compact())
	}
	if _, err := tab.Click(ctx, o.Controls[0].Ref); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `document.getElementById('picked').textContent`); got != "picked 7" {
		t.Errorf("picked %q", got)
	}

	if b := o.Controls[0].Box; b[0] < 600 || b[0]+b[2] > 1280 {
		t.Fatalf("item 7 is not where the test needs it (%v)", o.Controls[0].Box)
	}
	// A far one, off-screen at the row's far end.
	t0 := time.Now()
	o, err = tab.Observe(ctx, ObserveOptions{Query: "Item 4321"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("query over 5,000 buttons: %v (walk %.1f ms)", time.Since(t0), o.WalkMs)
	if len(o.Controls) != 1 || o.Controls[0].Name != "Item 4321" || o.Controls[0].InView {
		t.Fatalf("query Item 4321:\n%s", o.Compact())
	}
	item := o.Controls[0]
	if r, err := tab.Click(ctx, item.Ref); err != nil || !r.Changed {
		t.Fatalf("click %s: %v %v", item.Ref, r, err)
	}
	if got := eval[string](t, tab, `document.getElementById('picked').textContent`); got != "picked 4321" {
		t.Errorf("picked %q", got)
	}
	cases := []struct{ query, role, name, effect string }{
		{"blue MUG", "button", "Add to cart", `document.querySelector('.card button').textContent`}, // nearby: its card
		{"invoice 78", "button", "Download", `document.getElementById('picked').textContent`},       // nearby: its row
		{"lisbon", "textbox", "City", ""}, // value
		{"far away", "button", "Far away", `document.querySelector('#far button').textContent`}, // off-screen
	}
	for _, c := range cases {
		o, err := tab.Observe(ctx, ObserveOptions{Query: c.query})
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Controls) != 1 || o.Controls[0].Role != c.role || o.Controls[0].Name != c.name {
			t.Errorf("query %q:\n%s", c.query, o.Compact())
			continue
		}
		if c.effect == "" {
			continue
		}
		if _, err := tab.Click(ctx, o.Controls[0].Ref); err != nil {
			t.Errorf("click the %q match: %v", c.query, err)
		}
		t.Logf("%s → %s", c.query, eval[string](t, tab, c.effect))
	}
	if got := eval[string](t, tab, `document.querySelector('.card button').textContent + '|' + document.querySelectorAll('.card button')[1].textContent`); got != "Added|Add to cart" {
		t.Errorf("the card's own button: %q", got)
	}
	if got := eval[string](t, tab, `document.getElementById('picked').textContent`); got != "download 78" {
		t.Errorf("the row's own button: %q", got)
	}
	// Typing reaches a field far below the fold.
	o, err = tab.Observe(ctx, ObserveOptions{Query: "note", Roles: []string{"textbox"}})
	if err != nil || len(o.Controls) != 1 {
		t.Fatalf("note: %v\n%v", err, o)
	}
	if _, err := tab.Type(ctx, o.Controls[0].Ref, "hello", false); err != nil {
		t.Fatal(err)
	}
	if v := eval[string](t, tab, `document.getElementById('note').value`); v != "hello" {
		t.Errorf("note %q", v)
	}
}

// TestFindRefsStable: the same element keeps its ref across observations
// with other options.
func TestFindRefsStable(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/find.html")
	ctx := tctx(t)
	a, err := tab.Observe(ctx, ObserveOptions{Query: "Item 4321"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := tab.Observe(ctx, ObserveOptions{Query: "4321"})
	if err != nil {
		t.Fatal(err)
	}
	all, err := tab.Observe(ctx, ObserveOptions{All: true, Limit: 6000})
	if err != nil {
		t.Fatal(err)
	}
	want := a.Controls[0].Ref
	if b.Controls[0].Ref != want || find(t, all, "button", "Item 4321").Ref != want {
		t.Errorf("refs moved: %s, %s, %s", want, b.Controls[0].Ref, find(t, all, "button", "Item 4321").Ref)
	}
	full, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !full.Truncated || !strings.Contains(full.Compact(), "(more exist: call observe with query or roles)") {
		t.Errorf("the hint names the tool:\n%s", full.Compact())
	}
}

// TestFindWithin: observing within the dialog's ref sees only its
// subtree; unknown and stale refs are errors.
func TestFindWithin(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/find.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o.DialogRef == "" || !strings.Contains(o.Compact(), "dialog "+o.DialogRef) {
		t.Fatalf("no dialog ref:\n%s", o.Compact())
	}
	in, err := tab.Observe(ctx, ObserveOptions{Within: o.DialogRef})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range in.Controls {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "Save,Cancel" || in.Candidates != 2 {
		t.Errorf("within the dialog: %q\n%s", names, in.Compact())
	}
	if !strings.Contains(in.Text, "Dialog prose") || strings.Contains(in.Text, "picked") {
		t.Errorf("within text: %q", in.Text)
	}
	q, err := tab.Observe(ctx, ObserveOptions{Within: o.DialogRef, Query: "save"})
	if err != nil || len(q.Controls) != 1 || !q.Controls[0].InDialog {
		t.Errorf("query within: %v %v", q, err)
	}
	if _, err := tab.Observe(ctx, ObserveOptions{Within: "e999999"}); !errors.Is(err, ErrUnknownRef) {
		t.Errorf("unknown within: %v", err)
	}
	eval[any](t, tab, `document.querySelector('[role=dialog]').remove(), null`)
	if _, err := tab.Observe(ctx, ObserveOptions{Within: o.DialogRef}); !errors.Is(err, ErrStaleRef) {
		t.Errorf("removed within: %v", err)
	}
	save := find(t, o, "button", "Cancel")
	if _, err := tab.Navigate(ctx, site.URL+"/counter.html"); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Observe(ctx, ObserveOptions{Within: save.Ref}); !errors.Is(err, ErrStaleRef) {
		t.Errorf("within after a navigation: %v", err)
	}
}
