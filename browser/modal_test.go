package browser

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestModalBlocksPage: while a modal is open (a <dialog> opened with
// showModal, an aria-modal dialog, a backdrop without a role), the page
// behind it is not offered as usable: the frontier holds the modal's
// controls (and a suggestion list drawn over it from outside), says how
// many are blocked, and a query still finds one behind it, marked.
func TestModalBlocksPage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind   string
		portal bool
		want   []string // controls offered
	}{
		{"native", false, []string{"Close native", "Confirm native"}},
		{"aria", true, []string{"Save profile", "Cancel", "Suggestion one", "Suggestion two"}},
		{"backdrop", false, []string{"Subscribe", "No thanks"}},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			t.Parallel()
			tab := openTab(t, "/modal.html")
			ctx := tctx(t)
			eval[bool](t, tab, fmt.Sprintf("open(%q, %t)", c.kind, c.portal))
			o, err := tab.Observe(ctx, ObserveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			compact := o.Compact()
			if o.Blocked < 4 || !strings.Contains(compact, "the page behind the dialog is blocked") {
				t.Fatalf("blocked %d:\n%s", o.Blocked, compact)
			}
			for _, w := range c.want {
				find(t, o, "", w)
			}
			if strings.Contains(compact, "Page ") {
				t.Fatalf("the frontier offers more than the modal:\n%s", compact)
			}
			if o.Dialog == "" || o.DialogRef == "" {
				t.Fatalf("no dialog named:\n%s", compact)
			}
			q, err := tab.Observe(ctx, ObserveOptions{Query: "Page button 1"})
			if err != nil {
				t.Fatal(err)
			}
			if b := find(t, q, "button", "Page button 1"); !b.Blocked || !strings.Contains(q.Compact(), "blocked by the dialog") {
				t.Fatalf("a query for a control behind the modal:\n%s", q.Compact())
			}
		})
	}
}

// TestNoModalNoBlock: without a modal nothing is blocked, and a layer
// that hides nothing (an app drawn in one fixed box over the viewport) is
// the page, not a modal.
func TestNoModalNoBlock(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/modal.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Blocked != 0 || o.Dialog != "" {
		t.Fatalf("blocked %d, dialog %q:\n%s", o.Blocked, o.Dialog, o.Compact())
	}
	find(t, o, "button", "Page button 1")
	eval[bool](t, tab, `(() => { const s = document.createElement('div'); s.style.cssText = 'position:fixed;inset:0;overflow:auto;background:#fff'; s.append(...document.body.querySelectorAll('h1,p')); document.body.appendChild(s); return true })()`)
	o, err = tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Blocked != 0 || o.Dialog != "" {
		t.Fatalf("an app in a fixed box: blocked %d, dialog %q:\n%s", o.Blocked, o.Dialog, o.Compact())
	}
	find(t, o, "button", "Page button 1")
}

// TestModalDiffBehind: when a modal opens, the diff tells controls now
// out of reach behind it from controls that went away: the former are
// listed as behind the dialog (not gone), the latter as removed, and
// when it closes they are back under the same refs.
func TestModalDiffBehind(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/modal.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b1, far := find(t, o, "button", "Page button 1").Ref, find(t, o, "button", "Page button far").Ref
	eval[bool](t, tab, `[...document.querySelectorAll('button')].find((b) => b.textContent === 'Page button far').remove() || open("aria", false)`)
	d, err := tab.Changes(ctx, o.Version, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	compact := d.Compact()
	if !slices.Contains(d.Behind, b1) || slices.Contains(d.Behind, far) || !slices.Equal(d.Removed, []string{far}) ||
		!strings.Contains(compact, "behind the dialog until it closes (not gone): ") {
		t.Fatalf("diff when the modal opened:\n%s", compact)
	}
	eval[bool](t, tab, `document.getElementById('modal').remove() || true`)
	d, err = tab.Changes(ctx, d.Version, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back := false
	for _, c := range d.Added {
		back = back || c.Ref == b1
	}
	if !back {
		t.Fatalf("diff when the modal closed:\n%s", d.Compact())
	}
}
