package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
)

// TestWriteControlsRuns: controls whose refs and names step together are
// one line; anything that breaks the step (a ref or number that skips, a
// state, a value, a leading zero, another role) ends the run, and a run
// shorter than three is written out.
func TestWriteControlsRuns(t *testing.T) {
	t.Parallel()
	c := func(ref, role, name string) Control { return Control{Ref: ref, Role: role, Name: name, InView: true} }
	checked := c("e6", "button", "Item 6")
	checked.Checked = "true"
	cases := []struct {
		cs   []Control
		want string
	}{
		{[]Control{c("e1", "link", "Item 1"), c("e2", "link", "Item 2"), c("e3", "link", "Item 3"), c("e4", "link", "Item 4")},
			"e1…e4 link \"Item 1\"…\"Item 4\"\n"},
		{[]Control{c("e7", "button", "1"), c("e8", "button", "2"), c("e9", "button", "3"), c("e11", "button", "4")},
			"e7…e9 button \"1\"…\"3\"\ne11 button \"4\"\n"},
		{[]Control{c("e1", "link", "Item 1"), c("e2", "link", "Item 2")},
			"e1 link \"Item 1\"\ne2 link \"Item 2\"\n"},
		{[]Control{c("e3", "button", "Item 3"), c("e4", "button", "Item 4"), c("e5", "button", "Item 5"), checked},
			"e3…e5 button \"Item 3\"…\"Item 5\"\ne6 button \"Item 6\" [checked]\n"},
		{[]Control{c("e1", "link", "Page 08"), c("e2", "link", "Page 09"), c("e3", "link", "Page 10")},
			"e1 link \"Page 08\"\ne2 link \"Page 09\"\ne3 link \"Page 10\"\n"},
		{[]Control{c("e1", "link", "Day 1"), c("e2", "button", "Day 2"), c("e3", "link", "Day 3")},
			"e1 link \"Day 1\"\ne2 button \"Day 2\"\ne3 link \"Day 3\"\n"},
	}
	for _, tc := range cases {
		var sb strings.Builder
		writeControls(&sb, "", tc.cs)
		if sb.String() != tc.want {
			t.Errorf("got\n%s\nwant\n%s", sb.String(), tc.want)
		}
	}
	off := []Control{c("e1", "link", "Item 1"), c("e2", "link", "Item 2"), c("e3", "link", "Item 3")}
	for i := range off {
		off[i].InView = false
	}
	var sb strings.Builder
	writeControls(&sb, "+ ", off)
	if want := "+ e1…e3 link \"Item 1\"…\"Item 3\" [offscreen]\n"; sb.String() != want {
		t.Errorf("a diff's run: %q, want %q", sb.String(), want)
	}
}

// TestMoreText: how much lies outside the view, rounded for a reader.
func TestMoreText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		above, below int
		want         string
	}{
		{0, 0, ""},
		{0, 3412, "(about 3,400 more characters below: read_page for all)"},
		{1234, 56789, "(about 57,000 more characters below and 1,200 above: read_page for all)"},
		{7, 0, "(about 10 more characters above: read_page for all)"},
	} {
		if got := moreText(c.above, c.below); got != c.want {
			t.Errorf("moreText(%d, %d) = %q, want %q", c.above, c.below, got, c.want)
		}
	}
}

// TestSpliceFrames: a frame's text goes where its marker stands, nested
// frames in turn; a marker of a frame not read goes away; clipping counts
// what it drops.
func TestSpliceFrames(t *testing.T) {
	t.Parallel()
	texts := map[string]string{"top": "a\n\x01f1\x01\nb\n\x01gone\x01\nc", "f1": "x\n\x01f2\x01", "f2": "y"}
	m := map[cdp.FrameID]string{}
	for k, v := range texts {
		m[cdp.FrameID(k)] = v
	}
	if got := spliceFrames(m, "top", map[cdp.FrameID]bool{}, 0); got != "a\nx\ny\nb\nc" {
		t.Errorf("spliced %q", got)
	}
	if s, n := clipChars("héllo wörld", 6); s != "héllo…" || n != 6 {
		t.Errorf("clipChars: %q, %d", s, n)
	}
}

// TestDiffFocusMoved: a control whose only change is the focus it lost to
// another listed control is left out of the diff's text (the one that
// took it says [focused]), and counted out of the header; alone, losing
// the focus is still said.
func TestDiffFocusMoved(t *testing.T) {
	t.Parallel()
	name := Control{Ref: "e1", Role: "textbox", Name: "Name", Value: "Ada", InView: true, Focused: true}
	country := Control{Ref: "e2", Role: "combobox", Name: "Country", Value: "Argentina", InView: true}
	base := &baseline{controls: map[string]Control{"e1": name, "e2": country}, order: []string{"e1", "e2"}}
	blurred, chosen := name, country
	blurred.Focused = false
	chosen.Value, chosen.Focused = "Brazil", true
	d := diffObs(&Diff{Compared: 2, Candidates: 2}, base, &Observation{Controls: []Control{blurred, chosen}})
	got := d.Compact()
	if len(d.Changed) != 2 || strings.Contains(got, "e1") || !strings.Contains(got, "changes: 1 changed\n~ e2 combobox") {
		t.Errorf("focus moved to the select:\n%s", got)
	}
	d = diffObs(&Diff{Compared: 2, Candidates: 2}, base, &Observation{Controls: []Control{blurred, country}})
	if got := d.Compact(); !strings.Contains(got, "changes: 1 changed\n~ e1 textbox") {
		t.Errorf("focus lost to nothing listed:\n%s", got)
	}
}
