package app

import (
	"testing"

	"vroom/app/config"
	"vroom/browser"
)

// An answer for good is kept in the settings file, the same site's next
// answer replaces it, "this time" is not kept, and Forget removes it.
func TestPermissionsRemembered(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	const origin = "http://localhost:8099"
	ask := browser.PermissionAsk{ID: 1, Names: []string{"notifications"}, Origin: origin}
	sites := func() []config.SitePermission {
		st, err := d.store.Load()
		if err != nil {
			t.Fatal(err)
		}
		return st.Browser.Sites
	}
	if err := d.rememberPermission("tab", ask, PermissionOnce); err != nil {
		t.Fatal(err)
	}
	if got := sites(); len(got) != 0 {
		t.Fatalf("allowed this time, yet kept: %+v", got)
	}
	if err := d.rememberPermission("tab", ask, PermissionNever); err != nil {
		t.Fatal(err)
	}
	if err := d.rememberPermission("tab", ask, PermissionAlways); err != nil {
		t.Fatal(err)
	}
	if got := sites(); len(got) != 1 || got[0] != (config.SitePermission{Origin: origin, Name: "notifications", Allowed: true}) {
		t.Fatalf("kept %+v, want notifications allowed for %s once", got, origin)
	}
	st, err := d.ForgetPermission(origin, "notifications")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Settings.Browser.Sites) != 0 || len(sites()) != 0 {
		t.Fatalf("forgotten, yet kept: %+v", sites())
	}
}
