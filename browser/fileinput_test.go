package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileInputsObserved: file inputs are observed as such, with what
// they accept, how many files and which are chosen; one hidden behind
// its visible label is still a control named by the label.
func TestFileInputsObserved(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/fileinputs.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := o.Compact()
	for _, want := range []string{
		`file "Résumé / CV" = "accepts .pdf, one file; no file chosen"`,
		`file "Add photos" = "accepts image/*, several files; no file chosen"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the observation lacks %s:\n%s", want, text)
		}
	}
	cv := find(t, o, "file", "Résumé")
	path := filepath.Join(t.TempDir(), "cv.pdf")
	if err := os.WriteFile(path, []byte("%PDF-1.4"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := tab.Do(ctx, Action{Kind: ActUpload, Ref: cv.Ref, Files: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Changed {
		t.Errorf("upload: %s", r)
	}
	o, err = tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `"accepts .pdf, one file; chosen: cv.pdf"`; !strings.Contains(o.Compact(), want) {
		t.Errorf("after the upload the observation lacks %s:\n%s", want, o.Compact())
	}
}
