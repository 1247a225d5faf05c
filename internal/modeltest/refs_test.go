package modeltest

import "testing"

// TestRef: the latest matching control wins (a diff's line after the first
// look's), a change mark is no part of the ref, and ExactRef skips names
// that merely contain the one asked for.
func TestRef(t *testing.T) {
	text := "e1 button \"Add skill\"\ne2 option \"Go (language)\"\ne3 option \"Go\"\n~ e4 button \"Add skill now\"\n"
	for _, c := range []struct{ got, want string }{
		{Ref(text, "button", "Add skill"), "e4"},
		{Ref(text, "option", "Go"), "e3"},
		{ExactRef(text, "option", "Go"), "e3"},
		{ExactRef(text, "button", "Add skill"), "e1"},
		{Ref(text, "link", "Add"), ""},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestRefInRun: a run line stands for each of its controls, ref and name
// stepping together, and a later line still wins.
func TestRefInRun(t *testing.T) {
	text := "e3…e7 button \"Item 0\"…\"Item 4\"\ne8 button \"Save\"\n+ e20…e22 link \"Page 10 (next)\"…\"Page 12 (next)\" [offscreen]\n"
	for _, c := range []struct{ got, want string }{
		{ExactRef(text, "button", "Item 2"), "e5"},
		{ExactRef(text, "button", "Item 4"), "e7"},
		{ExactRef(text, "button", "Item 5"), ""},
		{ExactRef(text, "link", "Page 11 (next)"), "e21"},
		{Ref(text, "button", "Save"), "e8"},
		{ExactRef(text, "link", "Item 2"), ""},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
