package browser

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCoveredLayer: an action whose target is covered by a layer is
// refused with the layer's ref, and observing within that ref gives the
// controls that get it out of the way — for each kind of cover real sites
// have, not one example: a cookie banner over most of the screen, a
// newsletter popup without a role.
func TestCoveredLayer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind string
		want []string // controls of the layer
		not  string   // a control of the page behind, not in the layer
	}{
		{"cookie", []string{"Accept all", "Reject all", "Preferences"}, "Apply"},
		{"newsletter", []string{"Close", "Subscribe", "No thanks"}, "Apply"},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			t.Parallel()
			tab := openTab(t, "/covers.html")
			ctx := tctx(t)
			o, err := tab.Observe(ctx, ObserveOptions{Query: "Apply"})
			if err != nil {
				t.Fatal(err)
			}
			apply := find(t, o, "button", "Apply")
			eval[bool](t, tab, fmt.Sprintf("cover(%q) || true", c.kind))
			_, err = tab.Click(ctx, apply.Ref)
			var ae *ActionError
			if !errors.As(err, &ae) || !errors.Is(err, ErrNotActionable) || ae.Layer == "" {
				t.Fatalf("click under the %s: %v (%#v)", c.kind, err, ae)
			}
			if got := eval[string](t, tab, `document.getElementById('apply').textContent`); got != "Apply" {
				t.Fatal("the covered button was clicked")
			}
			lo, err := tab.Observe(ctx, ObserveOptions{Within: ae.Layer, Limit: 12})
			if err != nil {
				t.Fatal(err)
			}
			brief := lo.Brief()
			for _, w := range c.want {
				find(t, lo, "", w)
			}
			if strings.Contains(brief, c.not) {
				t.Fatalf("the layer holds the page behind it:\n%s", brief)
			}
			// Layer refs come from the tab's one counter: none repeats a
			// control's.
			for _, ctl := range append(o.Controls, lo.Controls...) {
				if ctl.Ref == ae.Layer {
					t.Fatalf("the layer's ref %s is also a control's", ae.Layer)
				}
			}
			t.Logf("%s: %v\n%s", c.kind, ae, brief)
		})
	}
}

// TestCoveredByChrome: page chrome over part of the viewport — a sticky
// header, a chat bubble, a short cookie bar — covers a target only where
// the page is scrolled; the click scrolls the target clear of it and
// lands, with one call, and the chrome is left as it was.
func TestCoveredByChrome(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"header", "chat", "cookie bar"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			tab := openTab(t, "/covers.html")
			ctx := tctx(t)
			o, err := tab.Observe(ctx, ObserveOptions{Query: "Apply"})
			if err != nil {
				t.Fatal(err)
			}
			apply := find(t, o, "button", "Apply")
			if !eval[bool](t, tab, fmt.Sprintf(`cover(%q) || true`, kind)) ||
				eval[bool](t, tab, `(() => { const r = apply.getBoundingClientRect(); const h = document.elementFromPoint(r.x + r.width/2, r.y + r.height/2); return h === apply; })()`) {
				t.Fatalf("the %s does not cover the button", kind)
			}
			r, err := tab.Click(ctx, apply.Ref)
			if err != nil || !r.Changed {
				t.Fatalf("click under the %s: %v, %v", kind, r, err)
			}
			if got := eval[string](t, tab, `document.getElementById('apply').textContent`); got != "Applied" {
				t.Fatalf("the button says %q", got)
			}
		})
	}
}

// TestCoveredTyping: typing into a covered field is refused the same way,
// with the layer, and works once the layer is closed with its own control.
func TestCoveredTyping(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/covers.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{Query: "Coupon"})
	if err != nil {
		t.Fatal(err)
	}
	field := find(t, o, "textbox", "Coupon")
	eval[bool](t, tab, `cover("newsletter") || true`)
	_, err = tab.Type(ctx, field.Ref, "SAVE10", false)
	var ae *ActionError
	if !errors.As(err, &ae) || ae.Layer == "" {
		t.Fatalf("type under the popup: %v", err)
	}
	lo, err := tab.Observe(ctx, ObserveOptions{Within: ae.Layer})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Click(ctx, find(t, lo, "button", "No thanks").Ref); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Type(ctx, field.Ref, "SAVE10", false); err != nil {
		t.Fatalf("type once the popup is gone: %v", err)
	}
	if got := eval[string](t, tab, `document.getElementById('field').value`); got != "SAVE10" {
		t.Fatalf("the field holds %q", got)
	}
}

// TestCoveredByFramedDialog: a dialog that is another page in an iframe
// over this one (a consent manager's, same origin or another site's) is a
// modal: the page behind is blocked and the frame's controls are offered;
// an action under it is refused with the layer, a look within the layer
// gives the frame's controls, one of them closes it (the click is an effect
// though its frame is gone), and then the action lands.
func TestCoveredByFramedDialog(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{"same origin": "/consent.html", "cross-site": crossSite() + "/consent.html"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tab, ctx := framedConsent(t, "full=1&src="+src, "Accept all")
			o, err := tab.Observe(ctx, ObserveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if o.Dialog != "Privacy choices" || o.Blocked < 2 {
				t.Fatalf("the framed dialog is not a modal:\n%s", o.Compact())
			}
			find(t, o, "button", "Accept all")
			q, err := tab.Observe(ctx, ObserveOptions{Query: "Show more"})
			if err != nil {
				t.Fatal(err)
			}
			more := find(t, q, "button", "Show more").Ref
			_, err = tab.Click(ctx, more)
			var ae *ActionError
			if !errors.As(err, &ae) || ae.Layer == "" {
				t.Fatalf("click under the framed dialog: %v", err)
			}
			lo, err := tab.Observe(ctx, ObserveOptions{Within: ae.Layer})
			if err != nil {
				t.Fatal(err)
			}
			// The press closes the frame it went into: an effect, not the
			// tab closing nor the page navigating.
			if r, err := tab.Click(ctx, find(t, lo, "button", "Accept all").Ref); err != nil || !r.Changed || r.Navigated {
				t.Fatalf("accept from within the layer: %v, %v", r, err)
			}
			if r, err := tab.Click(ctx, more); err != nil || !r.Changed {
				t.Fatalf("click once the dialog is closed: %v, %v", r, err)
			}
		})
	}
}

// TestFrameClickChangesThePage: a click inside an iframe whose effect is
// the page's (the frame posts a message, the page shows a note a moment
// later) is an effect, and the result's URL is the page's — in a frame of
// the same origin and of another site.
func TestFrameClickChangesThePage(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{"same origin": "/consent.html", "cross-site": crossSite() + "/consent.html"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tab, ctx := framedConsent(t, "src="+src, "Ask me later")
			o, err := tab.Observe(ctx, ObserveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := tab.Click(ctx, find(t, o, "button", "Ask me later").Ref)
			if err != nil || !r.Changed || !slices.Contains(r.Effects, "the page around its frame") || !strings.Contains(r.URL, "/framed-consent.html") {
				t.Fatalf("a click whose effect is the page's: %+v, %v", r, err)
			}
			if got := eval[string](t, tab, `document.getElementById('note').textContent`); got != "We'll ask again tomorrow" {
				t.Fatalf("the page's note: %q", got)
			}
		})
	}
}

// framedConsent opens framed-consent.html with query params and waits for
// the consent frame's control name to show.
func framedConsent(t *testing.T, params, name string) (*Tab, context.Context) {
	t.Helper()
	tab := openTab(t, "/framed-consent.html?"+params)
	ctx := tctx(t)
	if w, err := tab.Wait(ctx, WaitFor{Query: name}, 10*time.Second); err != nil || !w.Met {
		t.Fatalf("the consent frame never showed: %+v, %v", w, err)
	}
	return tab, ctx
}
