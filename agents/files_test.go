package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckUpload: only the run's files can be uploaded; anything else is
// one line naming the path and the files that may be used, and a given
// file that is gone is named too.
func TestCheckUpload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cv := filepath.Join(dir, "cv.pdf")
	if err := os.WriteFile(cv, []byte("%PDF"), 0o600); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(dir, "gone.pdf")
	for _, c := range []struct {
		given, files []string
		want         string
	}{
		{[]string{cv}, []string{cv}, ""},
		{[]string{cv}, []string{filepath.Join(dir, ".", "cv.pdf")}, ""},
		{[]string{cv}, []string{"/etc/passwd"}, "upload refused: /etc/passwd is not a file given to this run; the files you may upload are: " + cv},
		{nil, []string{"/etc/passwd"}, "upload refused: /etc/passwd was not given to this run, and no file was"},
		{[]string{cv, gone}, []string{gone}, "upload: the file " + gone + " cannot be read"},
		{[]string{dir}, []string{dir}, "is a folder, not a file"},
	} {
		err := CheckUpload(c.given, c.files)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v of %v: %v", c.files, c.given, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%v of %v: %v, want %q", c.files, c.given, err, c.want)
		}
	}
}

// TestClassifyDialog: accepting a confirm that asks to delete or pay is
// irreversible, as the click that raised it would be; cancelling is not,
// nor is an ordinary confirm.
func TestClassifyDialog(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a    Action
		t    Target
		want Class
	}{
		{Action{Kind: ActDialog, Accept: true}, Target{Role: "confirm", Name: "Delete all 3 files permanently?"}, Irreversible},
		{Action{Kind: ActDialog, Accept: true}, Target{Role: "confirm", Name: "Pay 40 € now?"}, Irreversible},
		{Action{Kind: ActDialog}, Target{Role: "confirm", Name: "Delete all 3 files permanently?"}, Write},
		{Action{Kind: ActDialog, Accept: true}, Target{Role: "confirm", Name: "Archive this project?"}, Write},
		{Action{Kind: ActHover, Ref: "e1"}, Target{Role: "link", Name: "Delete account"}, Read},
		{Action{Kind: ActDrag, Ref: "e1", To: "e2"}, Target{Role: "draggable", Name: "Card"}, Write},
	} {
		if got, why := Classify(c.a, c.t); got != c.want {
			t.Errorf("%s on %q: %v (%s), want %v", c.a, c.t.Name, got, why, c.want)
		}
	}
}

// TestPageToolArgs: the new tools' arguments make the actions they name,
// and missing ones are an error naming what is needed.
func TestPageToolArgs(t *testing.T) {
	t.Parallel()
	defs := executorDefs()
	for _, c := range []struct {
		tool, args string
		want       string
		err        string
	}{
		{"upload", `{"ref":"e3","files":["/tmp/cv.pdf"]}`, "upload /tmp/cv.pdf into e3", ""},
		{"upload", `{"ref":"e3"}`, "", `lack "files"`},
		{"upload", `{"ref":"e3","files":[]}`, "", "upload needs files"},
		{"drag", `{"ref":"e1","to":"e4"}`, "drag e1 to e4", ""},
		{"drag", `{"ref":"e1","dx":120}`, "drag e1 by (120, 0)", ""},
		{"drag", `{"ref":"e1"}`, "", "drag needs to"},
		{"hover", `{"ref":"e2"}`, "hover over e2", ""},
		{"dialog", `{"accept":true,"text":"Q3"}`, `answer the dialog with "Q3"`, ""},
		{"dialog", `{"accept":false}`, "dismiss the dialog", ""},
	} {
		d, _ := lookup(defs, c.tool)
		a, ok, err := d.Action(c.args)
		switch {
		case !ok:
			t.Errorf("%s is not an acting tool", c.tool)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s %s: %v, want %q", c.tool, c.args, err, c.err)
		case c.err == "" && (err != nil || a.String() != c.want):
			t.Errorf("%s %s: %q %v, want %q", c.tool, c.args, a, err, c.want)
		}
	}
}
