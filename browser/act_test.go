package browser

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBadInput(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/form.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	email := find(t, o, "textbox", "Email")

	if _, err := tab.Click(ctx, "e999"); !errors.Is(err, ErrUnknownRef) {
		t.Errorf("unknown ref: %v", err)
	}
	if _, err := tab.Type(ctx, email.Ref, strings.Repeat("x", 1<<20), false); !errors.Is(err, ErrTextTooLong) {
		t.Errorf("1 MB text: %v", err)
	}
	if v := eval[string](t, tab, `document.getElementById('email').value`); v != "" {
		t.Errorf("1 MB text had a side effect: %d bytes typed", len(v))
	}
	for _, u := range []string{"javascript:alert(1)", "file:///etc/passwd", "chrome://settings"} {
		if _, err := tab.Navigate(ctx, u); !errors.Is(err, ErrURLNotAllowed) {
			t.Errorf("navigate %s: %v", u, err)
		}
	}
	if _, err := tab.ClickAt(ctx, 5000, 10); !errors.Is(err, ErrOffscreen) {
		t.Errorf("off-screen click_at: %v", err)
	}
	if _, err := tab.ClickAt(ctx, -1, 10); !errors.Is(err, ErrOffscreen) {
		t.Errorf("negative click_at: %v", err)
	}
	if _, err := tab.Press(ctx, "Hyper+Q"); !errors.Is(err, ErrBadArgument) {
		t.Errorf("bad chord: %v", err)
	}
	if u := eval[string](t, tab, `location.pathname`); u != "/form.html" {
		t.Errorf("bad input navigated to %s", u)
	}
	// A disabled field is refused before any input is sent.
	locked := find(t, o, "textbox", "Disabled")
	var ae *ActionError
	if _, err := tab.Type(ctx, locked.Ref, "y", false); !errors.As(err, &ae) || !errors.Is(err, ErrNotActionable) {
		t.Errorf("disabled: %v", err)
	}

	// Stale after navigation: observe again, says the error.
	if _, err := tab.Navigate(ctx, site.URL+"/checkbox.html"); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Click(ctx, email.Ref); !errors.Is(err, ErrStaleRef) || !strings.Contains(err.Error(), "observe again") {
		t.Errorf("stale ref: %v", err)
	}
}

// TestLeasedTab: a tab leased to someone else refuses every other owner's
// calls with an error naming the holder, and the lease ends with its
// owner's context.
func TestLeasedTab(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/form.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	email := find(t, o, "textbox", "Email")

	lease, err := tab.Lease(ctx, "agent-7")
	if err != nil {
		t.Fatal(err)
	}
	var le *LeaseError
	if _, err := tab.Type(WithOwner(ctx, "agent-8"), email.Ref, "intruder", false); !errors.As(err, &le) || le.Holder != "agent-7" || !errors.Is(err, ErrTabLeased) {
		t.Errorf("leased: %v", err)
	}
	if _, err := tab.Observe(ctx, ObserveOptions{}); !errors.Is(err, ErrTabLeased) {
		t.Errorf("leased observe by nobody: %v", err)
	}
	if _, err := tab.Type(WithOwner(ctx, "agent-7"), email.Ref, "holder", false); err != nil {
		t.Errorf("holder: %v", err)
	}
	if l := testBrowser.Tabs(TabQuery{Owner: "agent-7"}); l.Matched != 1 || l.Tabs[0].ID != tab.ID() {
		t.Errorf("owner filter: %+v", l)
	}
	lease.Release()
	if _, err := tab.Observe(ctx, ObserveOptions{}); err != nil {
		t.Errorf("after release: %v", err)
	}
	// A lease ends with its owner's context.
	events := testBrowser.Subscribe(ctx)
	lctx, lcancel := context.WithCancel(ctx)
	if _, err := tab.Lease(lctx, "agent-9"); err != nil {
		t.Fatal(err)
	}
	lcancel()
	waitEvent(t, events, func(ev Event) bool { return ev.Kind == TabReleased && ev.Tab.ID == tab.ID() })
	if tab.Info().Owner != "" {
		t.Errorf("lease outlived its context: %q", tab.Info().Owner)
	}
}

func TestClosedTab(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/form.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tab.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Click(ctx, o.Controls[0].Ref); !errors.Is(err, ErrTabClosed) {
		t.Errorf("closed tab: %v", err)
	}
	if _, err := testBrowser.Tab(tab.ID()); !errors.Is(err, ErrTabClosed) {
		t.Errorf("lookup: %v", err)
	}
	for _, ti := range testBrowser.Tabs(TabQuery{Limit: 1000}).Tabs {
		if ti.ID == tab.ID() {
			t.Error("closed tab still listed")
		}
	}
}

func TestCoveredAndNoEffect(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/overlay.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	under := find(t, o, "button", "Under")
	var ae *ActionError
	if _, err := tab.Click(ctx, under.Ref); !errors.As(err, &ae) || !strings.Contains(ae.Hit, "cover") {
		t.Fatalf("covered click: %v", err)
	}
	if title := eval[string](t, tab, `document.title`); title == "clicked" {
		t.Error("the covered button was clicked")
	}
	// A click on dead space reports that nothing happened.
	eval[any](t, tab, `document.getElementById('cover').remove(), null`)
	if _, err := tab.Click(ctx, under.Ref); err != nil {
		t.Fatal(err)
	}
	tab2 := openTab(t, "/siblings.html?n=3")
	o2, err := tab2.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eval[any](t, tab2, `document.querySelectorAll('button').forEach(b => b.onclick = null), null`)
	r, err := tab2.Click(ctx, o2.Controls[0].Ref)
	if err != nil {
		t.Fatal(err)
	}
	if r.Changed || !strings.Contains(r.String(), "no visible effect") {
		t.Errorf("dead click reported as %v", r)
	}
}

func TestCanvasClickAt(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/canvas.html")
	ctx := tctx(t)
	shot, err := tab.Screenshot(ctx, ScreenshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if shot.Width != 1280 || shot.Height != 800 {
		t.Fatalf("screenshot %dx%d, want the 1280x800 viewport", shot.Width, shot.Height)
	}
	// Cell C5 is column 2 (200-300px), row 5 (25 + 4*25 = 125-150px).
	img, err := png.Decode(bytes.NewReader(shot.Data))
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _, _ := img.At(250, 137).RGBA(); r>>8 != 255 {
		t.Errorf("cell C5 is not white in the screenshot")
	}
	r, err := tab.ClickAt(ctx, 250, 137)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Changed || !strings.Contains(strings.Join(r.Effects, ","), "screen") {
		t.Errorf("canvas click: %v", r)
	}
	if _, err := tab.TypeFocused(ctx, "42"); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Press(ctx, "Enter"); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.TypeFocused(ctx, "7"); err != nil {
		t.Fatal(err)
	}
	cells := eval[map[string]string](t, tab, `window.cells`)
	if cells["C5"] != "42" || cells["C6"] != "7" || len(cells) != 2 {
		t.Errorf("cells = %v, want C5=42 C6=7", cells)
	}
}

func TestScreenshotAtDeviceScale(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/canvas.html")
	ctx := tctx(t)
	// A HiDPI tab: screenshots keep one pixel per CSS pixel.
	eval[any](t, tab, `null`)
	if err := emulateScale(ctx, tab, 2); err != nil {
		t.Fatal(err)
	}
	shot, err := tab.Screenshot(ctx, ScreenshotOptions{Marks: true})
	if err != nil {
		t.Fatal(err)
	}
	if shot.Width != 1280 || shot.Height != 800 {
		t.Fatalf("screenshot %dx%d at scale 2", shot.Width, shot.Height)
	}
	if _, err := tab.ClickAt(ctx, 750, 487); err != nil {
		t.Fatal(err)
	}
	if sel := eval[string](t, tab, `window.selected`); sel != "H19" {
		t.Errorf("selected %q, want H19", sel)
	}
}

func TestScrollHoverPressHistory(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/form.html")
	ctx := tctx(t)
	r, err := tab.Do(ctx, Action{Kind: ActScroll, Direction: "down"})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Changed || eval[float64](t, tab, `scrollY`) < 100 {
		t.Errorf("scroll: %v", r)
	}
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	save := find(t, o, "button", "Save")
	if _, err := tab.Do(ctx, Action{Kind: ActHover, Ref: save.Ref}); err != nil {
		t.Fatal(err)
	}
	if !eval[bool](t, tab, `document.getElementById('save').matches(':hover')`) {
		t.Error("not hovering Save")
	}
	f1 := find(t, o, "textbox", "Field 20")
	if _, err := tab.Type(ctx, f1.Ref, "abc", false); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Press(ctx, "Shift+Tab"); err != nil {
		t.Fatal(err)
	}
	if id := eval[string](t, tab, `document.activeElement.name`); id != "field19" {
		t.Errorf("Shift+Tab focused %q", id)
	}
	// Type with submit: Enter in a text field submits its form.
	r, err = tab.Type(ctx, f1.Ref, "xyz", true)
	if err != nil {
		t.Fatal(err)
	}
	if out := eval[string](t, tab, `document.getElementById('out').textContent`); !strings.Contains(out, "field20=xyz") {
		t.Errorf("submit: %q (%v)", out, r)
	}
	if _, err := tab.Do(ctx, Action{Kind: ActClear, Ref: f1.Ref}); err != nil {
		t.Fatal(err)
	}
	if v := eval[string](t, tab, `document.querySelector('[name=field20]').value`); v != "" {
		t.Errorf("clear left %q", v)
	}
	if _, err := tab.Navigate(ctx, site.URL+"/checkbox.html"); err != nil {
		t.Fatal(err)
	}
	r, err = tab.Do(ctx, Action{Kind: ActBack})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(r.URL, "/form.html") {
		t.Errorf("back to %s", r.URL)
	}
	if _, err := tab.Do(ctx, Action{Kind: ActForward}); err != nil {
		t.Fatal(err)
	}
	r, err = tab.Do(ctx, Action{Kind: ActReload})
	if err != nil || !strings.HasSuffix(r.URL, "/checkbox.html") {
		t.Errorf("reload: %v %v", r, err)
	}
}

func TestBatch(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/form.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	email, plan, terms, save := find(t, o, "textbox", "Email"), find(t, o, "combobox", "Plan"), find(t, o, "checkbox", "terms"), find(t, o, "button", "Save")
	br, err := tab.Batch(ctx, []Action{
		{Kind: ActType, Ref: email.Ref, Text: "b@c.example"},
		{Kind: ActSelect, Ref: plan.Ref, Option: "Team"},
		{Kind: ActClick, Ref: terms.Ref, Until: &Condition{Ref: terms.Ref, Checked: new(true)}},
		{Kind: ActClick, Ref: save.Ref, Until: &Condition{Text: "submitted"}},
	}, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if br.Failed != -1 || len(br.Results) != 4 || br.Observation == nil {
		t.Fatalf("batch: %+v", br)
	}
	if out := eval[string](t, tab, `document.getElementById('out').textContent`); !strings.Contains(out, "plan=team") || !strings.Contains(out, "terms=on") {
		t.Errorf("out = %q", out)
	}
	// A failing step stops the batch: the step after it never runs.
	br, err = tab.Batch(ctx, []Action{
		{Kind: ActType, Ref: email.Ref, Text: "first"},
		{Kind: ActClick, Ref: "e999"},
		{Kind: ActType, Ref: email.Ref, Text: "never"},
	}, ObserveOptions{})
	if !errors.Is(err, ErrUnknownRef) || br.Failed != 1 || len(br.Results) != 1 || br.Observation == nil {
		t.Fatalf("failing batch: %+v %v", br, err)
	}
	if v := eval[string](t, tab, `document.getElementById('email').value`); v != "first" {
		t.Errorf("email = %q", v)
	}
	// A check that does not hold stops it too.
	_, err = tab.Batch(ctx, []Action{
		{Kind: ActType, Ref: email.Ref, Text: "second", Until: &Condition{Text: "no such text"}},
		{Kind: ActType, Ref: email.Ref, Text: "never"},
	}, ObserveOptions{})
	if !errors.Is(err, ErrCondition) {
		t.Errorf("failed check: %v", err)
	}
	if v := eval[string](t, tab, `document.getElementById('email').value`); v != "second" {
		t.Errorf("email = %q", v)
	}
}

func TestUpload(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/upload.html")
	ctx := tctx(t)
	f := filepath.Join(t.TempDir(), "cv.txt")
	if err := os.WriteFile(f, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := find(t, o, "", "Attachment")
	if _, err := tab.Do(ctx, Action{Kind: ActUpload, Ref: in.Ref, Files: []string{f}}); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `document.getElementById('got').textContent`); got != "cv.txt 5" {
		t.Errorf("got %q", got)
	}
	if _, err := tab.Do(ctx, Action{Kind: ActUpload, Ref: in.Ref, Files: []string{"/no/such/file"}}); !errors.Is(err, ErrBadArgument) {
		t.Errorf("missing file: %v", err)
	}
}

// TestTypeWhereThePressDoesNotFocus: a field whose mousedown handler keeps
// the focus away from it. The text must land in that field, never in the
// field that had the focus (Chromium inserts text there when the press
// alone is trusted to focus).
func TestTypeWhereThePressDoesNotFocus(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/nofocus.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other, name := find(t, o, "textbox", "Other"), find(t, o, "textbox", "Name")
	if _, err := tab.Click(ctx, other.Ref); err != nil {
		t.Fatal(err)
	}
	r, err := tab.Type(ctx, name.Ref, "hello", false)
	if err != nil || !r.Changed {
		t.Fatalf("type: %v %+v", err, r)
	}
	o2, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range o2.Controls {
		want := ""
		if c.Ref == name.Ref {
			want = "hello"
		}
		if c.Value != want {
			t.Errorf("%s %q holds %q, want %q", c.Ref, c.Name, c.Value, want)
		}
	}
}

// TestTypeWhereTheTextLandsNowhere: text a page never takes — its field
// leaves the page as it gets the focus, or cancels the edit — changes no
// value, and the type answers without waiting out its settle's bound.
func TestTypeWhereTheTextLandsNowhere(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"Vanishing", "Cancelled"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tab := openTab(t, "/nowhere.html")
			ctx := tctx(t)
			o, err := tab.Observe(ctx, ObserveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			field := find(t, o, "textbox", name)
			r, err := tab.Type(ctx, field.Ref, "hello", false)
			if err != nil {
				t.Fatalf("type: %v", err)
			}
			if r.Took >= testBrowser.opts.SettleTimeout {
				t.Errorf("the type took %v: it waited out the settle's bound (%v)", r.Took, testBrowser.opts.SettleTimeout)
			}
			if got := eval[string](t, tab, `[...document.querySelectorAll('input')].map(i => i.value).join('')`); got != "" {
				t.Errorf("the page's fields hold %q, want nothing", got)
			}
			if name == "Cancelled" && slices.Contains(r.Effects, "value") {
				t.Errorf("effects %v: a value changed", r.Effects)
			}
		})
	}
}

// TestActionKindsAllValidate: every listed kind is one validate knows (a
// kind it does not know is refused as unknown).
func TestActionKindsAllValidate(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/form.html")
	for _, k := range ActionKinds() {
		if err := tab.validate(Action{Kind: k}); err != nil && strings.Contains(err.Error(), "unknown action") {
			t.Errorf("%s: %v", k, err)
		}
	}
	if err := tab.validate(Action{Kind: "fly"}); err == nil || !strings.Contains(err.Error(), "unknown action") {
		t.Errorf("an unknown kind: %v", err)
	}
}
