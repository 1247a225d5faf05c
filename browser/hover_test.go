package browser

import (
	"strings"
	"testing"
)

// TestHoverMenus: a menu opened by CSS :hover alone and one opened on
// mouseenter each show their item on a hover, the hover says so, the item
// is then observed and clicked.
func TestHoverMenus(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ menu, item string }{{"Account", "Security"}, {"Help", "Contact us"}} {
		t.Run(c.menu, func(t *testing.T) {
			t.Parallel()
			tab := openTab(t, "/hovermenu.html")
			ctx := tctx(t)
			o, err := tab.Observe(ctx, ObserveOptions{Query: c.item})
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range o.Controls {
				if x.Name == c.item {
					t.Fatalf("%s is a control before the hover", c.item)
				}
			}
			o, err = tab.Observe(ctx, ObserveOptions{All: true})
			if err != nil {
				t.Fatal(err)
			}
			menu := o.Controls[0].Ref
			for _, x := range o.Controls {
				if x.Name == c.menu {
					menu = x.Ref
				}
			}
			r, err := tab.Do(ctx, Action{Kind: ActHover, Ref: menu})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Changed || !strings.Contains(r.String(), "shown") {
				t.Errorf("hover: %s", r)
			}
			o, err = tab.Observe(ctx, ObserveOptions{Query: c.item})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tab.Click(ctx, find(t, o, "link", c.item).Ref); err != nil {
				t.Fatal(err)
			}
			if got := eval[string](t, tab, `document.getElementById('picked').textContent`); got != "picked "+c.item {
				t.Errorf("page says %q", got)
			}
		})
	}
}
