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
	before, _ := os.ReadDir(filepath.Join(home, "Downloads"))
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
	after, _ := os.ReadDir(filepath.Join(home, "Downloads"))
	if len(after) != len(before) {
		t.Errorf("the home folder's Downloads went from %d to %d entries", len(before), len(after))
	}
}
