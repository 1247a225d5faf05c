package browser

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// downloadPage opens the billing fixture, leased, with its downloads going
// to a folder of the test's own.
func downloadPage(t *testing.T, o DownloadOptions) (*Tab, string) {
	t.Helper()
	tab := openTab(t, "/downloads.html")
	ctx := tctx(t)
	if _, err := tab.Lease(ctx, "agent-"+t.Name()); err != nil {
		t.Fatal(err)
	}
	o.Dir = filepath.Join(t.TempDir(), "run", "downloads")
	if err := tab.SetDownloads(ownerCtx(t, tab), o); err != nil {
		t.Fatal(err)
	}
	return tab, o.Dir
}

// TestDownloadToTheHoldersFolder: a click that downloads says so in its
// result; the file lands in the holder's folder under its own name, a
// second one of the same name beside it, and the events tell its life.
func TestDownloadToTheHoldersFolder(t *testing.T) {
	t.Parallel()
	tab, dir := downloadPage(t, DownloadOptions{})
	ctx := ownerCtx(t, tab)
	events := testBrowser.Subscribe(ctx)
	r := clickNamed(t, tab, "link", "Download CSV")
	if len(r.Downloads) != 1 || r.Downloads[0].Name != "March invoice.csv" || r.Navigated {
		t.Fatalf("click: %s", r)
	}
	d, err := testBrowser.WaitDownload(ctx, r.Downloads[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Path != filepath.Join(dir, "March invoice.csv") || d.MIME != "text/csv; charset=utf-8" || d.Size != int64(len(invoiceCSV)) || d.Tab != tab.ID() {
		t.Errorf("download: %+v", d)
	}
	if b, err := os.ReadFile(d.Path); err != nil || string(b) != invoiceCSV {
		t.Errorf("file: %q %v", b, err)
	}
	waitEvent(t, events, func(ev Event) bool {
		return ev.Kind == DownloadStarted && ev.Download.ID == d.ID && ev.Tab.ID == tab.ID()
	})
	waitEvent(t, events, func(ev Event) bool {
		return ev.Kind == DownloadDone && ev.Download.ID == d.ID && ev.Download.Path == d.Path
	})
	r2 := clickNamed(t, tab, "link", "Download CSV")
	if len(r2.Downloads) != 1 {
		t.Fatalf("second click: %s", r2)
	}
	d2, err := testBrowser.WaitDownload(ctx, r2.Downloads[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if d2.Path != filepath.Join(dir, "March invoice (1).csv") {
		t.Errorf("second download at %s", d2.Path)
	}
	if home, err := os.UserHomeDir(); err == nil {
		if _, err := os.Stat(filepath.Join(home, "Downloads", "March invoice.csv")); err == nil {
			t.Errorf("a download reached the home folder")
		}
	}
}

// TestDownloadOverTheCap: a download larger than the holder's cap is
// cancelled and fails, with the cap as the reason, whether the server
// announced its size or not; nothing is left in the folder.
func TestDownloadOverTheCap(t *testing.T) {
	t.Parallel()
	tab, dir := downloadPage(t, DownloadOptions{MaxBytes: 1 << 20})
	ctx := ownerCtx(t, tab)
	for _, link := range []string{"Download export", "Download archive"} {
		r := clickNamed(t, tab, "link", link)
		if len(r.Downloads) != 1 {
			t.Fatalf("%s: %s", link, r)
		}
		d, err := testBrowser.WaitDownload(ctx, r.Downloads[0].ID)
		if !errors.Is(err, ErrDownloadFailed) || d.State != DownloadStateFailed || !strings.Contains(d.Err, "larger than the cap of 1.0 MB") {
			t.Errorf("%s: %+v %v", link, d, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the folder holds %d files", len(ents))
	}
}

// TestDownloadFromAPopup: a download link that opens a tab, with a name
// that tries to leave the folder, is the opener's download, saved in its
// folder under a plain name.
func TestDownloadFromAPopup(t *testing.T) {
	t.Parallel()
	tab, dir := downloadPage(t, DownloadOptions{})
	ctx := ownerCtx(t, tab)
	events := testBrowser.Subscribe(ctx)
	clickNamed(t, tab, "link", "Open receipt")
	ev := waitEvent(t, events, func(ev Event) bool { return ev.Kind == DownloadDone && strings.Contains(ev.Download.URL, "bashrc") })
	name := ev.Download.Name
	if ev.Download.Tab != tab.ID() || ev.Download.Path != filepath.Join(dir, name) || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		t.Errorf("download: %+v", ev.Download)
	}
}

func TestSanitizeFileName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"March invoice.csv":               "March invoice.csv",
		"../../etc/passwd":                "passwd",
		`..\..\boot.ini`:                  "boot.ini",
		".bashrc":                         "bashrc",
		"a:b*c?.txt":                      "a_b_c_.txt",
		"report\x00\x1b.pdf":              "report.pdf",
		"con.txt":                         "_con.txt",
		"":                                "download",
		"...":                             "download",
		"name.  ":                         "name",
		"rtl\u202eexe.txt":                "rtlexe.txt",
		strings.Repeat("é", 300) + ".csv": strings.Repeat("é", 98) + ".csv",
	} {
		if got := SanitizeFileName(in); got != want {
			t.Errorf("SanitizeFileName(%q) = %q, want %q", in, got, want)
		}
	}
}
