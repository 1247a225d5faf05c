package mcpserver

// What a page asks of a client's tab: downloads, dialogs.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testkit"
)

// A client's downloads go into the session's folder under the data dir,
// are listed by downloads and read by read_download in bounded pages
// fenced as untrusted; one over the session's cap is cancelled, leaves
// nothing, and reading it says why.
func TestMCPDownloads(t *testing.T) {
	t.Parallel()
	s := apptest.NewAsksSite(t)
	long := strings.Repeat("line of the ledger,1.00\n", 600) + "Total,600.00\n" // about 14 kB: two pages
	mux := http.NewServeMux()
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>Ledger</title><a href="/ledger.csv">Ledger</a> <a href="%s/big.bin">Archive</a>`, s.URL)
	})
	mux.HandleFunc("GET /ledger.csv", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		w.Header().Set("Content-Disposition", `attachment; filename="ledger.csv"`)
		fmt.Fprint(w, long)
	})
	site := httptest.NewServer(mux)
	defer site.Close()

	h := newMCPHarness(t, func(e *Env) { e.MaxDownload = 1 << 20 })
	dir := h.s.Downloads()
	if !strings.HasPrefix(dir, filepath.Join(h.s.env.DataDir, "mcp")+string(filepath.Separator)) {
		t.Fatalf("the session's downloads go to %q, not under its data dir", dir)
	}
	cs := h.connect(t, "stdio", nil)
	var page pageResult
	callTool(t, cs, "open", map[string]any{"url": site.URL + "/"}, &page)
	if got := contentText(callTool(t, cs, "downloads", map[string]any{"tab": page.Tab}, nil)); got != "no downloads in this run yet" {
		t.Errorf("downloads before any: %q", got)
	}
	var got actResult
	callTool(t, cs, "click", map[string]any{"tab": page.Tab, "ref": modeltest.Ref(page.Page, "link", "Ledger")}, &got)
	if !strings.Contains(got.Verdict, "downloaded ledger.csv") || !strings.Contains(got.Verdict, dir) {
		// On a loaded machine the browser may tell of the download only
		// after the click's result was given: look, as a careful client.
		t.Logf("the click's verdict: %s", got.Verdict)
		testkit.WaitFor(t, 10*time.Second, "the ledger in downloads", func() bool {
			list := contentText(callTool(t, cs, "downloads", map[string]any{"tab": page.Tab}, nil))
			return strings.Contains(list, `"ledger.csv"`) && strings.HasSuffix(list, " done")
		})
	}
	first := contentText(callTool(t, cs, "read_download", map[string]any{"tab": page.Tab, "download": "ledger.csv"}, nil))
	if !strings.Contains(first, `trust="untrusted"`) || !strings.Contains(first, "(more follows: read_download with cursor 8000)") || strings.Contains(first, "Total,") {
		t.Fatalf("the first page:\n%.300s…%s", first, first[max(0, len(first)-200):])
	}
	rest := contentText(callTool(t, cs, "read_download", map[string]any{"tab": page.Tab, "download": "ledger.csv", "cursor": 8000}, nil))
	if !strings.Contains(rest, "Total,600.00") || !strings.Contains(rest, "(the end of the file)") {
		t.Fatalf("the last page ends %q", rest[max(0, len(rest)-200):])
	}
	if _, err := os.Stat(filepath.Join(dir, "ledger.csv")); err != nil {
		t.Fatalf("the file is not in the session's folder: %v", err)
	}

	callTool(t, cs, "click", map[string]any{"tab": page.Tab, "ref": modeltest.Ref(page.Page, "link", "Archive")}, &got)
	if !strings.Contains(got.Verdict, "big.bin failed") || !strings.Contains(got.Verdict, "larger than the cap of 1.0 MB") {
		t.Errorf("a download over the cap: %s", got.Verdict)
	}
	over := callToolErr(t, cs, "read_download", map[string]any{"tab": page.Tab, "download": "big.bin"})
	if !strings.Contains(over, "big.bin failed (larger than the cap") || strings.Contains(over, "\n") {
		t.Errorf("reading a download over the cap: %q", over)
	}
	bad := callToolErr(t, cs, "read_download", map[string]any{"tab": page.Tab, "download": "ledger.csv", "cursor": 1 << 20})
	if !strings.Contains(bad, "cursor 1048576 is outside the text") {
		t.Errorf("a cursor past the end: %q", bad)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "ledger.csv" {
		t.Errorf("the session's folder holds %v, want the ledger only", entries)
	}
	list := contentText(callTool(t, cs, "downloads", map[string]any{"tab": page.Tab}, nil))
	if !strings.Contains(list, `"ledger.csv"`) || !strings.Contains(list, `"big.bin"`) || !strings.Contains(list, "failed: larger than the cap") {
		t.Errorf("downloads: %s", list)
	}
}

// An alert loop costs the client one call per alert the browser held
// after accepting the first of a burst, and each answer is quick: the
// page, blocked by its dialog, is never read before the answer (each
// answer waited out a 5 s call into it, 75 s for this loop).
func TestMCPAlertLoop(t *testing.T) {
	t.Parallel()
	s := apptest.NewAsksSite(t)
	h := newMCPHarness(t)
	cs := h.connect(t, "stdio", nil)
	var page pageResult
	callTool(t, cs, "open", map[string]any{"url": s.URL + "/alerts"}, &page)
	var res actResult
	start := time.Now()
	callTool(t, cs, "click", map[string]any{"tab": page.Tab, "ref": modeltest.Ref(page.Page, "button", "Start")}, &res)
	if res.Dialog == nil || !strings.Contains(res.Verdict, `alert "Are you still there? 0" was accepted`) {
		t.Fatalf("the click's result: %+v", res)
	}
	answers := 0
	for res.Dialog != nil {
		if answers++; answers > 20 {
			t.Fatalf("still a dialog after 20 answers: %+v", res)
		}
		res = actResult{}
		callTool(t, cs, "dialog", map[string]any{"tab": page.Tab, "accept": true}, &res)
	}
	testkit.WaitFor(t, 10*time.Second, "the loop's end", func() bool { return s.HasEvent("loop-done") })
	took := time.Since(start)
	t.Logf("20 alerts: the click and %d answers in %v", answers, took)
	if took > 30*time.Second {
		t.Errorf("the loop took %v: an answer waits on the blocked page", took)
	}
}

// While a dialog waits, looking at the page says so at once, in one line
// naming it, instead of waiting on the blocked page; the answer then
// goes through.
func TestMCPLookWhileDialogWaits(t *testing.T) {
	t.Parallel()
	s := apptest.NewAsksSite(t)
	h := newMCPHarness(t)
	cs := h.connect(t, "stdio", nil)
	var page pageResult
	callTool(t, cs, "open", map[string]any{"url": s.URL + "/project"}, &page)
	var res actResult
	callTool(t, cs, "click", map[string]any{"tab": page.Tab, "ref": modeltest.Ref(page.Page, "button", "Archive")}, &res)
	if res.Dialog == nil || res.Dialog.Kind != "confirm" || res.Dialog.Message != "Archive this project?" {
		t.Fatalf("the click's result: %+v", res)
	}
	for _, tool := range []string{"observe", "read_page"} {
		start := time.Now()
		err := callToolErr(t, cs, tool, map[string]any{"tab": page.Tab})
		t.Logf("%s: %s (%v)", tool, err, time.Since(start))
		if !strings.Contains(err, "Archive this project?") || strings.Contains(err, "\n") || time.Since(start) > 3*time.Second {
			t.Errorf("%s while a confirm waits: %q after %v", tool, err, time.Since(start))
		}
	}
	callTool(t, cs, "dialog", map[string]any{"tab": page.Tab, "accept": true}, &res)
	testkit.WaitFor(t, 10*time.Second, "the project archived", func() bool { return s.HasEvent("archived") })
}
