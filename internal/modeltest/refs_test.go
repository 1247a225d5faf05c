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
