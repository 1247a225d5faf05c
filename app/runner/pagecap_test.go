package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/browser"
	"vroom/internal/modeltest"
)

// TestDownloadOverTheCap: a download over the run's cap is one line
// naming the file and the cap in the click's result and in read_download's
// error, and nothing of it is in the run's folder.
func TestDownloadOverTheCap(t *testing.T) {
	t.Parallel()
	s := apptest.NewAsksSite(t)
	h := newHarness(t, nil)
	ctx := apptest.Context(t)
	dir := filepath.Join(t.TempDir(), "runs", "r1-downloads")
	h.tabs.SetDownloads(browser.DownloadOptions{Dir: dir, MaxBytes: 1 << 20})
	tab, err := h.tabs.OpenTab(ctx, "agent 1", s.URL+"/invoices")
	if err != nil {
		t.Fatal(err)
	}
	obs, err := tab.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	o, err := tab.Act(ctx, agents.Action{Kind: agents.ActClick, Ref: modeltest.Ref(obs.Text, "link", "Archive of everything")})
	if err != nil {
		t.Fatal(err)
	}
	const want = "big.bin failed: larger than the cap of 1.0 MB (4.0 MB)"
	if !strings.Contains(o.Summary, "the download of "+want) {
		t.Errorf("the click's result: %s", o.Summary)
	}
	_, err = tab.ReadDownload(ctx, "big.bin")
	if !errors.Is(err, browser.ErrDownloadFailed) || err.Error() != "the download of big.bin failed (larger than the cap of 1.0 MB (4.0 MB)): there is no file to read" {
		t.Errorf("read_download of the capped file: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the run's folder holds %d files", len(ents))
	}
}
