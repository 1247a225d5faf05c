package browser

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// boardPage opens a board fixture under the test's id and observes it.
func boardPage(t *testing.T, page string) (*Tab, string, *Observation) {
	t.Helper()
	id := states.pageID(t)
	tab := openTab(t, page+"?id="+id)
	o, err := tab.Observe(tctx(t), ObserveOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	return tab, id, o
}

// TestDragBoards: a card moved onto a card of the Done column, on an HTML5
// drag-and-drop board and on a pointer-events sortable board, judged by
// what each board told its server.
func TestDragBoards(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		page, card, onto, want string
		html5                  bool
	}{
		{"/kanban.html", "Fix the login bug", "Ship version 1", "Fix the login bug to Done", true},
		{"/sortable.html", "Book flights", "Pay the rent", "Book flights to Done", false},
	} {
		t.Run(strings.TrimSuffix(strings.TrimPrefix(c.page, "/"), ".html"), func(t *testing.T) {
			t.Parallel()
			tab, id, o := boardPage(t, c.page)
			ctx := tctx(t)
			r, err := tab.Do(ctx, Action{Kind: ActDrag, Ref: find(t, o, "", c.card).Ref, To: find(t, o, "", c.onto).Ref})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Changed || strings.Contains(r.Note, "HTML5") != c.html5 {
				t.Errorf("drag: %s", r)
			}
			if w, err := tab.Wait(ctx, WaitFor{}, 0); err != nil || !w.Met {
				t.Fatalf("idle: %v %v", w, err)
			}
			if got := states.get(id); !slices.Equal(got, []string{c.want}) {
				t.Errorf("server got %q after %s", got, r)
			}
		})
	}
}

// TestDragByOffset: a drag by dx/dy, as from a screenshot, to a column
// with no card in it.
func TestDragByOffset(t *testing.T) {
	t.Parallel()
	tab, id, o := boardPage(t, "/sortable.html")
	ctx := tctx(t)
	card := find(t, o, "", "Call the bank")
	// The middle column's middle, from the card's middle.
	dx := eval[float64](t, tab, `(() => { const c = document.querySelectorAll('.col')[1].getBoundingClientRect(), k = document.getElementById('t1').getBoundingClientRect(); return (c.left + c.width / 2) - (k.left + k.width / 2); })()`)
	r, err := tab.Do(ctx, Action{Kind: ActDrag, Ref: card.Ref, DX: dx, DY: 40})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Wait(ctx, WaitFor{}, 0); err != nil {
		t.Fatal(err)
	}
	if got := states.get(id); !slices.Equal(got, []string{"Call the bank to In progress"}) {
		t.Errorf("server got %q after %s", got, r)
	}
}

func TestDragErrors(t *testing.T) {
	t.Parallel()
	tab, _, o := boardPage(t, "/kanban.html")
	ctx := tctx(t)
	card := find(t, o, "", "Write the report").Ref
	for _, c := range []struct {
		a    Action
		want string
		is   error
	}{
		{Action{Kind: ActDrag, Ref: card}, "drag needs a target", ErrBadArgument},
		{Action{Kind: ActDrag, Ref: card, To: "e1", DX: 5}, "not both", ErrBadArgument},
		{Action{Kind: ActDrag, Ref: card, DX: 5000}, "outside the", ErrOffscreen},
		{Action{Kind: ActDrag, Ref: card, To: "e999"}, "e999", ErrUnknownRef},
	} {
		if _, err := tab.Do(ctx, c.a); !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v", c.a, err)
		}
	}
	eval[any](t, tab, `document.getElementById('c1').remove(), null`)
	if _, err := tab.Do(ctx, Action{Kind: ActDrag, Ref: card, DX: 300}); !errors.Is(err, ErrStaleRef) || !strings.Contains(err.Error(), "no longer on the page") {
		t.Errorf("a card that vanished: %v", err)
	}
}
