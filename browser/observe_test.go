package browser

import (
	"strings"
	"testing"
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
