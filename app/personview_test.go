package app

import (
	"errors"
	"strings"
	"testing"
	"time"

	"vroom/browser"
	"vroom/internal/testkit"
)

// The person's tab served to the view: a click on its select comes to the
// UI as EventPerson with the list to draw, ChoosePicker makes the choice
// the page's change handler sees, a tab an agent holds is not served, and
// without the window the clipboard says so instead of ending the process.
func TestPersonViewPicker(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	info, err := d.NewTab(`data:text/html,<select id=s style="position:absolute;left:0;top:0;width:300px;height:40px"><option>one<option>two<option>three<option>four</select><script>s.onchange=()=>document.title='chose '+s.value</script>`)
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, info.ID)
	if err := d.PersonView(info.ID, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.PersonView(info.ID, false) })
	from := d.ui.count(string(EventPerson))
	for _, typ := range []string{"down", "up"} {
		if err := d.PointerInput(info.ID, browser.PointerInput{Type: typ, X: 50, Y: 10, ViewWidth: 1280, ViewHeight: 800, Button: "left", Clicks: 1}); err != nil {
			t.Fatal(err)
		}
	}
	ev, _ := d.ui.wait(t, 10*time.Second, string(EventPerson), from, func(v any) bool { return v.(PersonView).Event.Kind == browser.PersonPicker })
	p := ev.(PersonView).Event.Picker
	if ev.(PersonView).Tab != info.ID || len(p.Options) != 4 {
		t.Fatalf("picker %+v", ev)
	}
	if err := d.ChoosePicker(info.ID, p.ID, p.Options[3].Value); err != nil {
		t.Fatal(err)
	}
	tab, _ := testBrowser.Tab(info.ID)
	testkit.WaitFor(t, 5*time.Second, "the page's change handler", func() bool {
		o, err := tab.Observe(t.Context(), browser.ObserveOptions{})
		return err == nil && strings.Contains(o.Title, "chose four")
	})
	if err := d.Paste(info.ID); !errors.Is(err, ErrNoClipboard) {
		t.Fatalf("paste without a window: %v", err)
	}
	if err := d.PersonView(info.ID, false); err != nil {
		t.Fatal(err)
	}
	l, err := tab.Lease(t.Context(), "exec-1")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if err := d.PersonView(info.ID, true); err == nil || !strings.Contains(err.Error(), "exec-1") {
		t.Fatalf("an agent's tab served to the person: %v", err)
	}
}
