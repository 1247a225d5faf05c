package browser

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestObserveForm(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/form.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(o.Compact())
	if len(o.Controls) > 40 {
		t.Errorf("frontier has %d controls, want at most 40", len(o.Controls))
	}
	email := find(t, o, "textbox", "Email")
	plan := find(t, o, "combobox", "Plan")
	if plan.Value != "Free" {
		t.Errorf("plan value = %q", plan.Value)
	}
	if _, err := tab.Type(ctx, email.Ref, "a@b.example", false); err != nil {
		t.Fatal(err)
	}
	if r, err := tab.Select(ctx, plan.Ref, "Pro"); err != nil || !r.Changed {
		t.Fatalf("select: %v %v", r, err)
	}
	terms := find(t, o, "checkbox", "terms")
	if r, err := tab.Click(ctx, terms.Ref); err != nil || !r.Changed {
		t.Fatalf("click terms: %v %v", r, err)
	}
	save, err := tab.Observe(ctx, ObserveOptions{Query: "Save"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tab.Click(ctx, find(t, save, "button", "Save").Ref)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r)
	out := eval[string](t, tab, `document.getElementById('out').textContent`)
	for _, want := range []string{"email=a%40b.example", "plan=pro", "terms=on"} {
		if !strings.Contains(out, want) {
			t.Errorf("submitted %q, want %s", out, want)
		}
	}
}

func TestCustomCombobox(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/combobox.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cb := find(t, o, "combobox", "Fruit")
	r, err := tab.Select(ctx, cb.Ref, "Cherry")
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r)
	if got := eval[string](t, tab, `document.getElementById('chosen').textContent`); got != "Cherry" {
		t.Errorf("chosen = %q, want Cherry", got)
	}
	// The listbox's options are controls too, while it is open. They render
	// late, so the click waits for them with a condition.
	if _, err := tab.Do(ctx, Action{Kind: ActClick, Ref: cb.Ref, Until: &Condition{Text: "Durian"}}); err != nil {
		t.Fatal(err)
	}
	d, err := tab.Changes(ctx, o.Version, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(d.Compact())
	n := 0
	for _, c := range d.Added {
		if c.Role == "option" {
			n++
		}
	}
	if n != 4 {
		t.Errorf("diff added %d options, want 4:\n%s", n, d.Compact())
	}
}

func TestShadowDOM(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/shadow.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nick := find(t, o, "textbox", "Nickname")
	if _, err := tab.Type(ctx, nick.Ref, "Bob", false); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Click(ctx, find(t, o, "button", "Greet").Ref); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `document.getElementById('log').textContent`); got != "greeted Bob" {
		t.Errorf("log = %q", got)
	}
}

func TestIframes(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/iframes.html")
	checkIframes(t, tab, tctx(t))
	if len(tab.oopifs) != 1 {
		t.Errorf("want the cross-site iframe attached as its own target, got %d", len(tab.oopifs))
	}
}

// TestIframesWithoutSiteIsolation runs the iframe checks in a browser
// launched with site isolation off, where the cross-site iframe shares the
// page's process; the shared test browser keeps isolation on, so there the
// iframe is a target of its own.
func TestIframesWithoutSiteIsolation(t *testing.T) {
	t.Parallel()
	ctx := tctxFor(t, 90*time.Second)
	b, err := Launch(ctx, Options{DisableSiteIsolation: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tab, err := b.Open(ctx, site.URL+"/iframes.html")
	if err != nil {
		t.Fatal(err)
	}
	checkIframes(t, tab, ctx)
	if len(tab.oopifs) != 0 {
		t.Errorf("no out-of-process iframes expected, got %d", len(tab.oopifs))
	}
}

func checkIframes(t *testing.T, tab *Tab, ctx context.Context) {
	t.Helper()
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(o.Compact())
	var inner []Control
	for _, c := range o.Controls {
		if c.Name == "Inner button" {
			inner = append(inner, c)
		}
	}
	if len(inner) != 2 || o.Frames != 3 {
		t.Fatalf("want the inner button of both frames (3 frames), got %d of %d:\n%s", len(inner), o.Frames, o.Compact())
	}
	// Boxes are in top-level coordinates: below the top button.
	top := find(t, o, "button", "Top button")
	for _, c := range inner {
		if c.Box[1] <= top.Box[1] {
			t.Errorf("inner box %v not offset below top %v", c.Box, top.Box)
		}
	}
	for _, c := range inner {
		r, err := tab.Click(ctx, c.Ref)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Changed {
			// What the tab saw tells a lost press from a slow page.
			now := "(could not observe)"
			if o2, err := tab.Observe(ctx, ObserveOptions{}); err == nil {
				now = o2.Compact()
			}
			t.Errorf("click %s had no effect: %+v\nthe page now:\n%s", c.Ref, r, now)
		}
	}
	msgs := eval[string](t, tab, `document.getElementById('msgs').textContent`)
	if !strings.Contains(msgs, site.URL) || !strings.Contains(msgs, crossSite()) {
		t.Errorf("messages %q: want clicks from %s and %s", msgs, site.URL, crossSite())
	}
	search := find(t, o, "textbox", "Inner search")
	if _, err := tab.Type(ctx, search.Ref, "deep", false); err != nil {
		t.Fatal(err)
	}
	o2, err := tab.Observe(ctx, ObserveOptions{Query: "Inner search"})
	if err != nil {
		t.Fatal(err)
	}
	if c := find(t, o2, "textbox", "Inner search"); c.Value != "deep" || c.Ref != search.Ref {
		t.Errorf("inner search = %+v", c)
	}
}

func TestDialogFirst(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/dialog.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(o.Compact())
	if o.Dialog != "Add member" {
		t.Errorf("dialog = %q", o.Dialog)
	}
	if !o.Truncated || o.Candidates < 300 {
		t.Errorf("candidates %d truncated %v: the busy page has 300+", o.Candidates, o.Truncated)
	}
	// The dialog's controls lead, including those below its fold.
	for i, name := range []string{"Person", "Allow external members", "Cancel", "Add"} {
		if c := o.Controls[i]; !strings.Contains(c.Name, name) || !c.InDialog {
			t.Errorf("control %d = %+v, want %q in the dialog", i, c, name)
		}
	}
	add := find(t, o, "button", "Add")
	if add.InView {
		t.Errorf("Add should be below the dialog's fold: %+v", add)
	}
	if _, err := tab.Type(ctx, find(t, o, "textbox", "Person").Ref, "Dana", false); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Click(ctx, find(t, o, "checkbox", "external").Ref); err != nil {
		t.Fatal(err)
	}
	r, err := tab.Click(ctx, add.Ref)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r)
	if got := eval[string](t, tab, `document.getElementById('members').textContent`); strings.TrimSpace(got) != "Dana" {
		t.Errorf("members = %q", got)
	}
	if open := eval[bool](t, tab, `document.getElementById('dlg').open`); open {
		t.Error("dialog still open")
	}
}

func TestTransparentCheckbox(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/checkbox.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cb := find(t, o, "checkbox", "Send me news")
	if cb.Checked != "false" {
		t.Errorf("checked = %q", cb.Checked)
	}
	r, err := tab.Click(ctx, cb.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Changed {
		t.Errorf("click had no effect: %v", r)
	}
	if got := eval[string](t, tab, `document.getElementById('state').textContent`); got != "on" {
		t.Errorf("state = %q", got)
	}
	d, err := tab.Changes(ctx, o.Version, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changed) != 1 || d.Changed[0].Ref != cb.Ref || d.Changed[0].Checked != "true" {
		t.Errorf("diff:\n%s", d.Compact())
	}
}

func TestSensitiveFields(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/sensitive.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(o)
	for _, secret := range []string{"hunter2", "4111111111111111", "123", "987654"} {
		// Quoted, as values are in both forms: a bare "123" also matches
		// the test server's random port in the page URL.
		if strings.Contains(o.Compact(), `"`+secret+`"`) || strings.Contains(string(js), `"`+secret+`"`) {
			t.Errorf("secret %q leaked:\n%s", secret, o.Compact())
		}
	}
	for _, name := range []string{"Password", "Card number", "CVV", "Code from SMS"} {
		if c := find(t, o, "textbox", name); c.Value != "***" || !c.Sensitive {
			t.Errorf("%s = %+v, want masked", name, c)
		}
	}
	if c := find(t, o, "textbox", "User"); c.Value != "alice" {
		t.Errorf("user = %+v", c)
	}
	// Typing a new password does not echo it anywhere either.
	pw := find(t, o, "textbox", "Password")
	r, err := tab.Type(ctx, pw.Ref, "s3cret!", false)
	if err != nil {
		t.Fatal(err)
	}
	rj, _ := json.Marshal(r)
	d, err := tab.Changes(ctx, o.Version, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dj, _ := json.Marshal(d)
	if strings.Contains(string(rj)+string(dj)+d.Compact()+r.String(), "s3cret") {
		t.Errorf("typed password leaked: %s %s", rj, dj)
	}
	if got := eval[string](t, tab, `document.getElementById('pw').value`); got != "s3cret!" {
		t.Errorf("password field = %q", got)
	}
}

func TestWideRow(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/siblings.html?n=5000")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Controls) != 40 || o.Candidates != 5000 || !o.Truncated {
		t.Fatalf("controls %d candidates %d truncated %v", len(o.Controls), o.Candidates, o.Truncated)
	}
	t.Logf("walk %.1f ms", o.WalkMs)
	c := o.Controls[len(o.Controls)-1]
	if _, err := tab.Click(ctx, c.Ref); err != nil {
		t.Fatal(err)
	}
	want := "b" + strings.TrimPrefix(c.Name, "Button ")
	if got := eval[string](t, tab, `document.title`); got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	// A query reaches the far end of the row without scrolling.
	q, err := tab.Observe(ctx, ObserveOptions{Query: "Button 4999"})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Controls) != 1 || q.Controls[0].InView {
		t.Fatalf("query: %s", q.Compact())
	}
	if _, err := tab.Click(ctx, q.Controls[0].Ref); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `document.title`); got != "b4999" {
		t.Errorf("title = %q", got)
	}
}

func TestReplacedButtonKeepsRef(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/replace.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	inc := find(t, o, "button", "Increment")
	for i := 0; i < 3; i++ {
		r, err := tab.Click(ctx, inc.Ref)
		if err != nil {
			t.Fatalf("click %d: %v", i, err)
		}
		if !r.Changed {
			t.Errorf("click %d: no effect", i)
		}
	}
	if n := eval[string](t, tab, `document.getElementById('n').textContent`); n != "3" {
		t.Errorf("clicks = %s, want 3", n)
	}
	o2, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := find(t, o2, "button", "Increment"); c.Ref != inc.Ref {
		t.Errorf("ref changed from %s to %s", inc.Ref, c.Ref)
	}
}

func TestDiffBaselines(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/form.html")
	ctx := tctx(t)
	v1, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	email := find(t, v1, "textbox", "Email")
	// A narrow look in between must not replace the broad baseline.
	if _, err := tab.Observe(ctx, ObserveOptions{Roles: []string{"button"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Type(ctx, email.Ref, "x@y.example", false); err != nil {
		t.Fatal(err)
	}
	d, err := tab.Changes(ctx, v1.Version, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(d.Compact())
	if d.Full != nil || len(d.Changed) != 1 || d.Changed[0].Ref != email.Ref || d.Changed[0].Value != "x@y.example" || len(d.Added)+len(d.Removed) != 0 {
		t.Fatalf("diff:\n%s", d.Compact())
	}
	// Chained: nothing changed since the diff's own version.
	d2, err := tab.Changes(ctx, d.Version, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !d2.Empty() || d2.Compared != len(v1.Controls) || !strings.Contains(d2.Compact(), "compared 39 of 39") {
		t.Errorf("empty diff should say what it looked at:\n%s", d2.Compact())
	}
	// Other options: a full observation and the reason.
	d3, err := tab.Changes(ctx, d2.Version, ObserveOptions{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if d3.Full == nil || !strings.Contains(d3.Reason, "other options") {
		t.Errorf("options differ: %+v", d3.Reason)
	}
	d4, err := tab.Changes(ctx, 9999, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d4.Full == nil || !strings.Contains(d4.Reason, "gone") {
		t.Errorf("missing baseline: %q", d4.Reason)
	}
	// At least eight baselines per document survive.
	first := d4.Version
	for range 8 {
		if _, err := tab.Observe(ctx, ObserveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if d5, err := tab.Changes(ctx, first+1, ObserveOptions{}); err != nil || d5.Full != nil {
		t.Errorf("baseline v%d evicted too early: %v %v", first+1, err, d5.Reason)
	}
}

// TestDiffCarriesNewText: a click that only changes prose (a count, a
// message) shows in the diff as the new text, not as "nothing changed".
func TestDiffCarriesNewText(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/counter.html")
	ctx := tctx(t)
	v1, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	add := find(t, v1, "button", "Add one")
	if _, err := tab.Click(ctx, add.Ref); err != nil {
		t.Fatal(err)
	}
	d, err := tab.Changes(ctx, v1.Version, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Empty() || d.Text != "1" || !strings.Contains(d.Compact(), "text now: 1\n") {
		t.Fatalf("diff:\n%s", d.Compact())
	}
}

func TestNewText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ was, now, want string }{
		{"Count: 0", "Count: 0", ""},
		{"Count: 0", "Count: 1", "1"},
		{"Your cart", "Your cart Saved as draft at 10:02", "Saved as draft at 10:02"},
		{"Error: bad email Fill in the form", "Fill in the form", ""},
		{"a b c", "x y z", "x y z"},
		{"", strings.Repeat("word ", 100), clipText(strings.TrimSpace(strings.Repeat("word ", 100)), maxDiffText)},
	} {
		if got := newText(tc.was, tc.now); got != tc.want {
			t.Errorf("newText(%q, %q) = %q, want %q", tc.was, tc.now, got, tc.want)
		}
	}
}
