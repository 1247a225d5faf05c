package browser

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vroom/internal/testkit"
)

// TestDownloadOverTheCapLeavesNothing: a download over the holder's cap
// fails with one line naming the file and the cap (and its size), and
// leaves no byte anywhere: not in the holder's folder, not in the
// browser's staging folder, not in the home folder's Downloads.
func TestDownloadOverTheCapLeavesNothing(t *testing.T) {
	t.Parallel()
	tab, dir := downloadPage(t, DownloadOptions{MaxBytes: 1 << 20})
	ctx := ownerCtx(t, tab)
	home, _ := os.UserHomeDir() // no home: nothing can land there
	r := clickNamed(t, tab, "link", "Download export")
	if len(r.Downloads) != 1 {
		t.Fatalf("click: %s", r)
	}
	d, err := testBrowser.WaitDownload(ctx, r.Downloads[0].ID)
	if !errors.Is(err, ErrDownloadFailed) {
		t.Fatalf("the capped download: %+v %v", d, err)
	}
	line := d.String()
	if want := "the download of export.bin failed: larger than the cap of 1.0 MB (2.9 MB)"; line != want {
		t.Errorf("its line is %q, want %q", line, want)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the holder's folder holds %d files", len(ents))
	}
	testBrowser.dl.mu.Lock()
	staging := testBrowser.dl.staging
	testBrowser.dl.mu.Unlock()
	// Chromium deletes its partial file on a thread of its own, after
	// the event that says it cancelled.
	left := func() string {
		ents, _ := os.ReadDir(staging)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), d.ID) {
				return e.Name()
			}
		}
		return ""
	}
	testkit.WaitFor(t, 10*time.Second, "the staging folder without the download", func() bool { return left() == "" })
	// Other tests' pages share the browser: only this download's name is
	// this test's to look for.
	after, _ := os.ReadDir(filepath.Join(home, "Downloads"))
	for _, e := range after {
		if strings.Contains(e.Name(), "export") {
			t.Errorf("the home folder's Downloads holds %s", e.Name())
		}
	}
}
