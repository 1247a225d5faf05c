package browser

import (
	"errors"
	"testing"
)

// TestPermissionSetForAnOrigin: what a page asks about is answered by the
// setting for its origin, and only for it.
func TestPermissionSetForAnOrigin(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/inner.html")
	ctx := tctx(t)
	state := func() string {
		return eval[string](t, tab, `navigator.permissions.query({name: 'geolocation'}).then((s) => s.state)`)
	}
	before := state()
	if err := testBrowser.SetPermission(ctx, site.URL, "geolocation", PermissionGranted); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testBrowser.SetPermission(ctx, site.URL, "geolocation", PermissionPrompt) })
	if got := state(); got != "granted" {
		t.Errorf("granted: the page reads %q (before: %q)", got, before)
	}
	if err := testBrowser.SetPermission(ctx, site.URL, "geolocation", PermissionDenied); err != nil {
		t.Fatal(err)
	}
	if got := state(); got != "denied" {
		t.Errorf("denied: the page reads %q", got)
	}
	if err := testBrowser.SetPermission(ctx, "not an origin", "geolocation", PermissionGranted); !errors.Is(err, ErrBadArgument) {
		t.Errorf("bad origin: %v", err)
	}
}
