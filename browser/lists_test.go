package browser

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestClippedListOptions: the options of a custom list, shown from
// display:none inside its own scroll box with most of them below its
// fold, are controls: out of view until scrolled to, found by a query
// and by a look within the list, and a click on one scrolls it into view
// inside its box and picks it.
func TestClippedListOptions(t *testing.T) {
	t.Parallel()
	// The id is the run's own: the fixture server's record outlives a test.
	id := fmt.Sprintf("clipped-%d", time.Now().UnixNano())
	tab := openTab(t, "/countrylist.html?id="+id)
	ctx := tctx(t)
	// Looked at once while the list is hidden: the walker has seen its
	// options at zero size.
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Click(ctx, find(t, o, "button", "Choose a country").Ref); err != nil {
		t.Fatal(err)
	}
	o, err = tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first, canada := find(t, o, "option", "Afghanistan"), find(t, o, "option", "Canada")
	if !first.InView || canada.InView {
		t.Fatalf("in view: Afghanistan %v, Canada %v (clipped by the list's box):\n%s", first.InView, canada.InView, o.Compact())
	}
	list := find(t, o, "listbox", "Country")
	for _, look := range []ObserveOptions{{Query: "canada"}, {Within: list.Ref, Query: "Canada"}} {
		q, err := tab.Observe(ctx, look)
		if err != nil {
			t.Fatal(err)
		}
		if len(q.Controls) == 0 || q.Controls[0].Name != "Canada" || q.Controls[0].Ref != canada.Ref {
			t.Fatalf("observe %+v:\n%s", look, q.Compact())
		}
	}
	if _, err := tab.Click(ctx, canada.Ref); err != nil {
		t.Fatal(err)
	}
	if got := states.get(id); !slices.Equal(got, []string{"country=Canada"}) {
		t.Fatalf("the page posted %v", got)
	}
}

// TestPointerRowsInAQuery: a list of divs that take clicks through
// listeners, with nothing marking them controls, is found by a query:
// the passage's row, drawn with the pointer cursor, is its control, and
// a click on it (below its box's fold) reaches the listener.
func TestPointerRowsInAQuery(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/countrylist.html?id=rows")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{Query: "Region 30"})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Passages) == 0 || len(o.Passages[0].Refs) != 1 {
		t.Fatalf("no row for the passage:\n%s", o.Compact())
	}
	if c := o.Compact(); !strings.Contains(c, `generic "Region 30"`) {
		t.Fatalf("the row is not offered as a control:\n%s", c)
	}
	if _, err := tab.Click(ctx, o.Passages[0].Refs[0]); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `document.getElementById('status').textContent`); got != "region 30" {
		t.Fatalf("status %q", got)
	}
}
