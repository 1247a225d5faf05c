package browser

import (
	"fmt"
	"testing"
	"time"

	"vroom/internal/testkit"
)

// TestGuardHoldsWindowsFirstDocument: what the first document of a window
// a guarded tab opened sends at once — its first script's image and
// fetch, its markup's image, its frame's image — is checked by the opener's guard, named as
// the window's, before its tab is set up: refused, none reaches the
// server, and the window, whose page was allowed, stays.
func TestGuardHoldsWindowsFirstDocument(t *testing.T) {
	t.Parallel()
	attacker, hits := counter(t, "gotcha")
	popup, pages := counter(t, fmt.Sprintf(`<!doctype html><html><head><script>
new Image().src = %[1]q + '/leak-img';
fetch(%[1]q + '/leak-fetch', {mode: 'no-cors'}).catch(() => {});
</script></head><body><img src="%[1]s/leak-markup"><iframe srcdoc="<img src='%[1]s/leak-frame'>"></iframe><p>Thanks</p></body></html>`, attacker.URL))
	tab, ctx := openURL(t, site.URL+"/")
	g := &recordingGuard{}
	stop, err := tab.Guard(ctx, g.check)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for i := range 3 {
		eval[any](t, tab, fmt.Sprintf(`window.open(%q), 1`, fmt.Sprintf("%s/thanks%d", popup.URL, i)))
	}
	for _, path := range []string{"leak-img", "leak-fetch", "leak-markup", "leak-frame"} {
		testkit.WaitFor(t, 10*time.Second, "the guard's checks of "+path, func() bool { return len(g.saw(path)) >= 3 })
		for _, r := range g.saw(path) {
			if r.Tab == tab.ID() || !r.Script {
				t.Errorf("%s: checked as %+v, want the window's page's", path, r)
			}
		}
		if n := hits("/" + path); n != 0 {
			t.Errorf("%s reached the server %d times", path, n)
		}
	}
	for i := range 3 {
		if n := pages(fmt.Sprintf("/thanks%d", i)); n != 1 {
			t.Errorf("the window's page %d loaded %d times, want 1", i, n)
		}
	}
	id := g.saw("leak-img")[0].Tab
	if _, err := testBrowser.Tab(id); err != nil {
		t.Errorf("the window whose page was allowed: %v", err)
	}
}
