package browser

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeFile writes a file of the test's own and returns its path.
func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFileChooserApplication: "Choose file" opens a chooser, which is an
// event and the click's result; an upload without a ref answers it, and
// the server receives the file's bytes with the form.
func TestFileChooserApplication(t *testing.T) {
	t.Parallel()
	id := states.pageID(t)
	tab := openTab(t, "/apply.html?id="+id)
	ctx := tctx(t)
	events := testBrowser.Subscribe(ctx)
	cv := writeFile(t, "cv.txt", "Ten years of Go.")
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Type(ctx, find(t, o, "textbox", "Full name").Ref, "Ada Lovelace", false); err != nil {
		t.Fatal(err)
	}
	r := clickNamed(t, tab, "button", "Choose file")
	if r.Chooser == nil || r.Chooser.Accept != ".pdf,.txt" || r.Chooser.Multiple || r.Chooser.Name != "Résumé / CV" || !strings.Contains(r.String(), `a file chooser opened for "Résumé / CV" (accepts .pdf,.txt; one file)`) {
		t.Fatalf("no chooser in the result: %s", r)
	}
	ev := waitEvent(t, events, func(ev Event) bool { return ev.Kind == FileChooserOpened && ev.Tab.ID == tab.ID() })
	if ev.Chooser == nil || ev.Chooser.ID != r.Chooser.ID {
		t.Errorf("event: %+v", ev.Chooser)
	}
	if _, ok := tab.FileChooser(); !ok {
		t.Error("no chooser waiting")
	}
	up, err := tab.Do(ctx, Action{Kind: ActUpload, Files: []string{cv}})
	if err != nil {
		t.Fatal(err)
	}
	if !up.Changed || !strings.Contains(up.String(), "set cv.txt") {
		t.Errorf("upload: %s", up)
	}
	if _, ok := tab.FileChooser(); ok {
		t.Error("the chooser still waits after its files were set")
	}
	if got := eval[string](t, tab, `document.getElementById('chosen').textContent`); got != "cv.txt" {
		t.Errorf("the page shows %q", got)
	}
	if r := clickNamed(t, tab, "button", "Send application"); !r.Navigated {
		t.Fatalf("send: %s", r)
	}
	if got := states.get(id); !slices.Equal(got, []string{"name=Ada Lovelace", "cv=cv.txt:Ten years of Go."}) {
		t.Errorf("server got %q", got)
	}
}

// TestUploadErrors: each bad upload is refused in one line naming what is
// wrong, before anything reaches the page.
func TestUploadErrors(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/apply.html?id="+t.Name())
	ctx := tctx(t)
	a, b := writeFile(t, "a.pdf", "a"), writeFile(t, "b.pdf", "b")
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	name := find(t, o, "textbox", "Full name").Ref
	cv := find(t, o, "", "Cover letter").Ref
	for _, c := range []struct {
		what string
		a    Action
		want string
		is   error
	}{
		{"missing file", Action{Kind: ActUpload, Ref: cv, Files: []string{"/no/such/cv.pdf"}}, "/no/such/cv.pdf: no such file", ErrBadArgument},
		{"a folder", Action{Kind: ActUpload, Ref: cv, Files: []string{t.TempDir()}}, "is a folder, not a file", ErrBadArgument},
		{"not a file input", Action{Kind: ActUpload, Ref: name, Files: []string{a}}, "not a file input (input type=text)", ErrNotActionable},
		{"two files for one", Action{Kind: ActUpload, Ref: cv, Files: []string{a, b}}, "takes one file, 2 given", ErrBadArgument},
		{"no chooser open", Action{Kind: ActUpload, Files: []string{a}}, "no file chooser is open", ErrBadArgument},
	} {
		_, err := tab.Do(ctx, c.a)
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", c.what, err)
		}
	}
	if got := eval[int](t, tab, `document.querySelector('[name=letter]').files.length`); got != 0 {
		t.Errorf("a refused upload set %d files", got)
	}
	// A type the input does not accept is set, as "All files" in a chooser
	// allows, and said.
	txt := writeFile(t, "notes.md", "x")
	r, err := tab.Do(ctx, Action{Kind: ActUpload, Ref: cv, Files: []string{txt}})
	if err != nil || !strings.Contains(r.Note, "not of the types it accepts") {
		t.Errorf("unaccepted type: %v %v", r, err)
	}
}
