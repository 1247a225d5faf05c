package agents

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// A page tool's call from outside a run names its tab and decodes as an
// executor's; wait's room arguments are neither offered nor taken.
func TestTabCalls(t *testing.T) {
	t.Parallel()
	for _, d := range PageTools() {
		s := d.TabSchema()
		if s.Properties["tab"] == nil || s.Required[0] != "tab" || s.PropertyOrder[0] != "tab" {
			t.Errorf("%s's tab schema: %+v", d.Name, s)
		}
		if s.Properties["heard"] != nil || s.Properties["floor_free"] != nil {
			t.Errorf("%s offers the room's arguments outside a run", d.Name)
		}
	}
	wait, _ := lookup(executorDefs(), "wait")
	if got := wait.roomArgs(); !slices.Equal(got, []string{"heard", "floor_free"}) {
		t.Fatalf("wait's room arguments: %v", got)
	}
	if _, _, err := wait.SplitTab(`{"tab":"T1","heard":"line 2"}`); err == nil || !strings.Contains(err.Error(), `"heard" needs a run's room`) {
		t.Fatalf("heard outside a run: %v", err)
	}
	click, _ := lookup(executorDefs(), "click")
	if _, _, err := click.SplitTab(`{"ref":"e1"}`); err == nil || !strings.Contains(err.Error(), `lack "tab"`) {
		t.Fatalf("no tab: %v", err)
	}
	tab, rest, err := click.SplitTab(`{"tab":"T1","ref":"e1"}`)
	if err != nil || tab != "T1" {
		t.Fatalf("split: %q %q %v", tab, rest, err)
	}
	if a, ok, err := click.Action(rest); !ok || err != nil || a.Kind != ActClick || a.Ref != "e1" {
		t.Fatalf("the rest decodes as an executor's call: %+v %v %v", a, ok, err)
	}
	if _, ok, err := click.Action(`{}`); !ok || !errors.Is(err, ErrMalformed) {
		t.Fatalf("a click without ref: %v", err)
	}
	if w, timeout, err := PageWait(`{"text":"Saved","timeout_s":"90"}`); err != nil || w.Text != "Saved" || timeout != waitMax {
		t.Fatalf("PageWait: %+v %v %v", w, timeout, err)
	}
	if o, err := ObserveOptions(`{"roles":"button, link"}`); err != nil || len(o.Roles) != 2 {
		t.Fatalf("ObserveOptions: %+v %v", o, err)
	}
}
