package browser

import "testing"

// TestMuteTab: a muted tab's media elements play muted, in the document
// loaded now and in the next one; unmuted, what the mute silenced plays
// again and a Web Audio context may resume.
func TestMuteTab(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/inner.html")
	ctx := tctx(t)
	playMuted := `(() => { const a = document.createElement('audio'); document.body.append(a); a.play().catch(() => {}); return a.muted })()`
	if eval[bool](t, tab, playMuted) {
		t.Fatal("an unmuted tab's audio element played muted")
	}
	if err := tab.SetMuted(ctx, true); err != nil {
		t.Fatal(err)
	}
	if !tab.Muted() {
		t.Error("Muted() is false after SetMuted(true)")
	}
	if !eval[bool](t, tab, `[...document.querySelectorAll('audio')].every((a) => a.muted)`) {
		t.Error("the audio element already there was not muted")
	}
	if !eval[bool](t, tab, playMuted) {
		t.Error("a new audio element played unmuted in a muted tab")
	}
	if eval[bool](t, tab, `(() => { const a = document.querySelector('audio'); a.muted = false; return a.muted })()`) == false {
		// The page unmuting it is undone as the volume changes.
		if !eval[bool](t, tab, `new Promise((r) => setTimeout(() => r(document.querySelector('audio').muted), 50))`) {
			t.Error("the page unmuted its element in a muted tab")
		}
	}
	if eval[string](t, tab, `(async () => { const c = new AudioContext(); await c.resume(); return c.state })()`) == "running" {
		t.Error("a Web Audio context runs in a muted tab")
	}
	if _, err := tab.Navigate(ctx, site.URL+"/inner.html"); err != nil {
		t.Fatal(err)
	}
	if !eval[bool](t, tab, playMuted) {
		t.Error("the next document's audio played unmuted")
	}
	if err := tab.SetMuted(ctx, false); err != nil {
		t.Fatal(err)
	}
	if !eval[bool](t, tab, `[...document.querySelectorAll('audio')].every((a) => !a.muted)`) {
		t.Error("unmuted, the elements the mute silenced stay muted")
	}
	if _, err := tab.Navigate(ctx, site.URL+"/inner.html"); err != nil {
		t.Fatal(err)
	}
	if eval[bool](t, tab, playMuted) {
		t.Error("after unmuting, the next document's audio played muted")
	}
}
