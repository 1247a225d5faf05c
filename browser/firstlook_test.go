package browser

import (
	"strings"
	"testing"
)

// TestFirstLookAfterPageLoadHandlers: the look a navigated-to document
// takes of itself comes after the page's own load handlers, so what they
// build is in it, and its refs act.
func TestFirstLookAfterPageLoadHandlers(t *testing.T) {
	t.Parallel()
	ctx := tctx(t)
	tab := openTab(t, "/checkbox.html")
	if _, err := tab.Observe(ctx, ObserveOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		r, err := tab.Navigate(ctx, site.URL+"/onload.html?"+string(rune('a'+i)))
		if err != nil {
			t.Fatal(err)
		}
		if !r.Navigated {
			t.Fatalf("navigate: %+v", r)
		}
		tab.op.Lock()
		pushed := tab.looked != nil
		tab.op.Unlock()
		if !pushed {
			t.Errorf("navigation %d: the new document sent no look of its own", i)
		}
		obs, err := tab.Observe(ctx, ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(obs.Text, "3 orders") {
			t.Fatalf("the look missed what the load handler wrote:\n%s", obs.Compact())
		}
		ref := find(t, obs, "button", "Export orders").Ref
		if i := tab.Info(); i.Title != "Loaded late" || i.Favicon != site.URL+"/favicon.ico" {
			t.Errorf("tab title %q, icon %q once the navigation returned", i.Title, i.Favicon)
		}
		cr, err := tab.Click(ctx, ref)
		if err != nil || !cr.Changed {
			t.Fatalf("click %s: %+v %v", ref, cr, err)
		}
		tab.op.Lock()
		settledLook := tab.looked != nil
		tab.op.Unlock()
		if !settledLook {
			t.Errorf("navigation %d: the click's settle took no look of the page", i)
		}
		// The diff after the click comes from the settle's own look.
		d, err := tab.Changes(ctx, obs.Version, ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(d.Text, "Exported") && (d.Full == nil || !strings.Contains(d.Full.Text, "Exported")) {
			t.Errorf("diff after the click: %+v", d)
		}
	}
}

// TestFirstLookRefsStayUnique: refs handed out by looks the page took of
// itself never name two elements, across documents and later looks.
func TestFirstLookRefsStayUnique(t *testing.T) {
	t.Parallel()
	ctx := tctx(t)
	tab := openTab(t, "/checkbox.html")
	if _, err := tab.Observe(ctx, ObserveOptions{}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, p := range []string{"/onload.html", "/form.html", "/onload.html?2", "/checkbox.html"} {
		if _, err := tab.Navigate(ctx, site.URL+p); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			obs, err := tab.Observe(ctx, ObserveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range obs.Controls {
				key := p + " " + c.Role + " " + c.Name
				if was, ok := seen[c.Ref]; ok && was != key {
					t.Fatalf("%s names %q and %q", c.Ref, was, key)
				}
				seen[c.Ref] = key
			}
		}
	}
}

// TestKeptLookYieldsToLaterChange: a look taken with an action stands for
// the page only until the page changes on its own (a message from another
// window, a script, focus moving); the look after that is a new one.
func TestKeptLookYieldsToLaterChange(t *testing.T) {
	t.Parallel()
	ctx := tctx(t)
	tab := openTab(t, "/onload.html")
	for i, change := range []struct{ script, want string }{
		{`document.getElementById('status').textContent = 'Signed in'`, "Signed in"},
		{`document.title = 'Renamed'; document.querySelector('h1').textContent = 'Renamed'`, "Renamed"},
		{`const b = document.querySelector('button'); b.textContent = 'Export again'; b.focus()`, "Export again"},
	} {
		obs, err := tab.Observe(ctx, ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ref := find(t, obs, "button", "Export").Ref
		if _, err := tab.Click(ctx, ref); err != nil {
			t.Fatalf("click %s: %v", ref, err)
		}
		tab.op.Lock()
		kept := tab.looked != nil
		tab.op.Unlock()
		if !kept {
			t.Fatalf("change %d: the click's settle kept no look", i)
		}
		// The change lands after the click's look; the promise resolves
		// in a later task, once the page's observers have run.
		eval[bool](t, tab, `(() => { `+change.script+`; return new Promise((r) => setTimeout(() => r(true), 0)); })()`)
		after, err := tab.Observe(ctx, ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(after.Compact(), change.want) {
			t.Fatalf("change %d: the look after the page changed is the one from before it:\n%s", i, after.Compact())
		}
	}
}
