package browser

import (
	"context"
	"strings"
	"testing"
	"time"
)

const personPage = `data:text/html,<body style="margin:0;font:20px sans-serif">
<select id=s style="position:absolute;left:10px;top:10px;width:200px;height:30px"><option>one<option>two<option disabled>three<optgroup label=More><option>four<option>five</optgroup></select>
<input id=d type=date style="position:absolute;left:300px;top:10px;width:200px;height:30px">
<input id=l list=fruit style="position:absolute;left:10px;top:200px;width:200px;height:30px"><datalist id=fruit><option value=apple><option value=apricot><option value=banana></datalist>
<a id=a href="/next" style="position:absolute;left:10px;top:100px">a link</a>
<p id=p style="position:absolute;left:300px;top:100px;margin:0">Some words to copy</p>
<input id=f style="position:absolute;left:10px;top:300px;width:300px;height:30px">
<script>window.got=[];for (const id of ['s','d','l','f']) for (const k of ['input','change','paste']) document.getElementById(id).addEventListener(k, e => got.push(id+':'+k+':'+e.target.value))</script></body>`

// nextEvent waits for the next event of kind on ch.
func nextEvent(t *testing.T, ch <-chan PersonEvent, kind PersonEventKind) PersonEvent {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("the person's events ended before a %s", kind)
			}
			if ev.Kind == kind {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s event", kind)
		}
	}
}

func servePerson(t *testing.T) (*Tab, <-chan PersonEvent, context.Context) {
	t.Helper()
	ctx := tctx(t)
	tab, err := testBrowser.Open(ctx, personPage)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tab.Close(ctx) })
	sctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	ch, err := tab.ServePerson(sctx)
	if err != nil {
		t.Fatal(err)
	}
	return tab, ch, ctx
}

func click(t *testing.T, tab *Tab, x, y float64, button string) {
	t.Helper()
	for _, typ := range []string{"move", "down", "up"} {
		if err := tab.ForwardPointer(tctx(t), PointerInput{Type: typ, X: x, Y: y, ViewWidth: 1280, ViewHeight: 800, Button: button}); err != nil {
			t.Fatal(err)
		}
	}
}

// A click on a native select in a person's tab asks the view to draw its
// list (options, groups, which is disabled and chosen, under the element),
// and the choice made there reaches the page as a person's choice does.
func TestPersonSelectPicker(t *testing.T) {
	t.Parallel()
	tab, ch, ctx := servePerson(t)
	click(t, tab, 100, 25, "left")
	ev := nextEvent(t, ch, PersonPicker)
	p := ev.Picker
	if p.Type != PickerSelect || len(p.Options) != 5 || p.Rect.X != 10 || p.Rect.Y != 10 || p.Rect.W != 200 {
		t.Fatalf("picker %+v", p)
	}
	if o := p.Options; !o[0].Selected || !o[2].Disabled || o[3].Group != "More" || o[3].Label != "four" {
		t.Fatalf("options %+v", o)
	}
	if err := tab.Choose(ctx, p.ID, p.Options[3].Value); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `got.join(' ')`); got != "s:input:four s:change:four" {
		t.Fatalf("the page saw %q", got)
	}
	if err := tab.Choose(ctx, p.ID, "1"); err == nil {
		t.Fatal("a closed picker took a choice")
	}
	// The keyboard opens it too (Space on the focused select).
	if err := tab.ForwardKey(ctx, KeyInput{Type: "down", Key: " ", Code: "Space", Text: " ", KeyCode: 32}); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, ch, PersonPicker); !ev.Picker.Options[3].Selected {
		t.Fatalf("reopened with %+v", ev.Picker.Options)
	}
}

// A date input's indicator and a datalist field open Vroom's pickers; a
// datalist's suggestions follow what is typed.
func TestPersonDateAndDatalist(t *testing.T) {
	t.Parallel()
	tab, ch, ctx := servePerson(t)
	click(t, tab, 490, 25, "left")
	p := nextEvent(t, ch, PersonPicker).Picker
	if p.Type != PickerDate {
		t.Fatalf("picker %+v", p)
	}
	if err := tab.Choose(ctx, p.ID, "2026-03-14"); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `document.getElementById('d').value + ' ' + got.join(' ')`); got != "2026-03-14 d:input:2026-03-14 d:change:2026-03-14" {
		t.Fatalf("the page saw %q", got)
	}
	click(t, tab, 100, 215, "left")
	if p = nextEvent(t, ch, PersonPicker).Picker; p.Type != PickerDatalist || len(p.Options) != 3 {
		t.Fatalf("datalist %+v", p)
	}
	if err := tab.InsertText(ctx, "ap"); err != nil {
		t.Fatal(err)
	}
	p = nextEvent(t, ch, PersonPicker).Picker
	if len(p.Options) != 2 || p.Options[1].Value != "apricot" {
		t.Fatalf("filtered %+v", p.Options)
	}
	if err := tab.Choose(ctx, p.ID, "apricot"); err != nil {
		t.Fatal(err)
	}
	if v := eval[string](t, tab, `document.getElementById('l').value`); v != "apricot" {
		t.Fatalf("value %q", v)
	}
}

// The cursor follows what is under the pointer; a right-click on a link
// asks for the context menu with the link; a copy says what it took; a
// paste reaches the focused field with its paste event.
func TestPersonCursorMenuClipboard(t *testing.T) {
	t.Parallel()
	tab, ch, ctx := servePerson(t)
	move := func(x, y float64) {
		if err := tab.ForwardPointer(ctx, PointerInput{Type: "move", X: x, Y: y, ViewWidth: 1280, ViewHeight: 800}); err != nil {
			t.Fatal(err)
		}
	}
	move(30, 110)
	if c := nextEvent(t, ch, PersonCursor).Cursor; c != "pointer" {
		t.Fatalf("over a link: %q", c)
	}
	move(340, 112)
	if c := nextEvent(t, ch, PersonCursor).Cursor; c != "text" {
		t.Fatalf("over text: %q", c)
	}
	move(700, 600)
	if c := nextEvent(t, ch, PersonCursor).Cursor; c != "default" {
		t.Fatalf("over nothing: %q", c)
	}
	click(t, tab, 30, 110, "right")
	m := nextEvent(t, ch, PersonMenu).Menu
	if !strings.HasSuffix(m.Link, "/next") || m.LinkText != "a link" || m.X != 30 {
		t.Fatalf("menu %+v", m)
	}
	eval[bool](t, tab, `(() => { const r = document.createRange(); r.selectNodeContents(document.getElementById('p')); getSelection().removeAllRanges(); getSelection().addRange(r); return true })()`)
	if s, err := tab.SelectedText(ctx); err != nil || s != "Some words to copy" {
		t.Fatalf("selected %q, %v", s, err)
	}
	for _, typ := range []string{"down", "up"} {
		if err := tab.ForwardKey(ctx, KeyInput{Type: typ, Key: "c", Code: "KeyC", KeyCode: 67, Modifiers: modCtrl}); err != nil {
			t.Fatal(err)
		}
	}
	if got := nextEvent(t, ch, PersonCopied).Text; got != "Some words to copy" {
		t.Fatalf("copied %q", got)
	}
	click(t, tab, 100, 315, "left")
	if err := tab.PasteText(ctx, "pasted 🙂"); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `document.getElementById('f').value + ' | ' + got.join(' ')`); got != "pasted 🙂 | f:paste: f:input:pasted 🙂" {
		t.Fatalf("the page saw %q", got)
	}
}

// A person's tab shows its scrollbars (agents' tabs hide theirs); once
// the view stops serving it, they hide again and a select's click is the
// page's own once more.
func TestPersonScrollbarsAndEnd(t *testing.T) {
	t.Parallel()
	ctx := tctx(t)
	tab, err := testBrowser.Open(ctx, `data:text/html,<body style="margin:0;height:3000px"><select id=s><option>a<option>b</select><script>window.downs=0;s.addEventListener('mousedown', e => { downs++; window.prevented = e.defaultPrevented })</script></body>`)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tab.Close(ctx) })
	bar := func() int { return eval[int](t, tab, `innerWidth - document.documentElement.clientWidth`) }
	if w := bar(); w != 0 {
		t.Fatalf("an agent's tab shows a %d px scrollbar", w)
	}
	sctx, cancel := context.WithCancel(ctx)
	ch, err := tab.ServePerson(sctx)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for bar() <= 0 {
		if time.Now().After(deadline) {
			t.Fatal("the person's tab shows no scrollbar")
		}
		if err := tab.ForwardPointer(ctx, PointerInput{Type: "move", X: 2, Y: 2, ViewWidth: 1280, ViewHeight: 800}); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	for range ch {
	}
	deadline = time.Now().Add(5 * time.Second)
	for bar() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the scrollbar stayed after the view stopped serving the tab")
		}
		if err := tab.ForwardPointer(ctx, PointerInput{Type: "move", X: 1, Y: 1, ViewWidth: 1280, ViewHeight: 800}); err != nil {
			t.Fatal(err)
		}
	}
	click(t, tab, 20, 10, "left")
	if got := eval[string](t, tab, `downs + ' ' + prevented`); got != "1 false" {
		t.Fatalf("after the end the page's select saw %q", got)
	}
}
