package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHiddenFileInputInALabel: a file input with display:none inside the
// label styled as its button (the usual "Upload" button, or a drop zone
// that is a button itself) is observed as a file field named by the
// label, with what it accepts, how many files and which are chosen;
// upload works on its ref and on the label's.
func TestHiddenFileInputInALabel(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/labelupload.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := o.Compact()
	for _, want := range []string{
		`file "Upload CSV" = "accepts .csv text/csv, several files; no file chosen"`,
		`file "Drop a photo here" = "accepts image/*, one file; no file chosen"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the observation lacks %s:\n%s", want, text)
		}
	}
	dir := t.TempDir()
	var paths []string
	for _, n := range []string{"friends.csv", "work.csv", "me.png"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	csv := find(t, o, "file", "Upload CSV")
	if r, err := tab.Do(ctx, Action{Kind: ActUpload, Ref: csv.Ref, Files: paths[:2]}); err != nil || !r.Changed {
		t.Fatalf("upload on the input's ref: %v %v", r, err)
	}
	if got := eval[string](t, tab, `document.getElementById('status').textContent`); got != "csv: friends.csv, work.csv" {
		t.Errorf("status %q", got)
	}
	zone := find(t, o, "button", "Drop a photo")
	if r, err := tab.Do(ctx, Action{Kind: ActUpload, Ref: zone.Ref, Files: paths[2:]}); err != nil || !r.Changed {
		t.Fatalf("upload on the label's ref: %v %v", r, err)
	}
	if got := eval[string](t, tab, `document.getElementById('status').textContent`); got != "photo: me.png" {
		t.Errorf("status %q", got)
	}
	o, err = tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`file "Upload CSV" = "accepts .csv text/csv, several files; chosen: friends.csv, work.csv"`,
		`file "Drop a photo here" = "accepts image/*, one file; chosen: me.png"`,
	} {
		if !strings.Contains(o.Compact(), want) {
			t.Errorf("after the uploads the observation lacks %s:\n%s", want, o.Compact())
		}
	}
}
