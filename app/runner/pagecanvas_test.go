package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// TestFlowCanvasSheetEditor: a cell of the canvas sheet edited through
// screenshot, click_at, type_focused and Enter, judged by the site.
func TestFlowCanvasSheetEditor(t *testing.T) {
	t.Parallel()
	if f := canvasFlow(t); f.total() != 5 {
		t.Fatalf("%d calls, want 5: %v", f.total(), f.calls)
	}
}

// canvasFlow puts 42 in cell B2 of the canvas sheet and waits for the
// site to have it.
func canvasFlow(tb testing.TB) *flowTally {
	f, s := pageFlow(tb, "/sheet", "Put 42 in cell B2",
		func(r *modeltest.Request) modeltest.Reply { return apptest.Call("screenshot") },
		// B2: column B is 100-200 px, row 2 is 50-75 px under the header.
		func(r *modeltest.Request) modeltest.Reply { return apptest.Call("click_at", "x", 150, "y", 62) },
		func(r *modeltest.Request) modeltest.Reply { return apptest.Call("type_focused", "text", "42") },
		func(r *modeltest.Request) modeltest.Reply { return apptest.Call("press", "key", "Enter") },
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Done(r.LastText(), !strings.HasPrefix(r.LastText(), "error"))
		})
	testkit.WaitFor(tb, 5*time.Second, "the cell to reach the site", func() bool {
		events := s.Events()
		return slices.Contains(events, "B2=42")
	})
	return f
}

// TestFileTextPDF: a PDF's text comes through a real extractor; a file
// that is not text is refused, naming it.
func TestFileTextPDF(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pdf := filepath.Join(dir, "invoice.pdf")
	if err := os.WriteFile(pdf, apptest.OnePagePDF("Invoice March 2026", "Total due: 123.45 EUR"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		testenv.Missing(t, "pdftotext (poppler-utils; build/deps.sh installs it)")
	}
	got, err := fileText(t.Context(), pdf, "application/pdf")
	if err != nil {
		t.Fatalf("the PDF's text: %v", err)
	}
	if !strings.Contains(got, "Total due: 123.45 EUR") {
		t.Fatalf("the PDF's text: %q", got)
	}
	bin := filepath.Join(dir, "x.bin")
	if err := os.WriteFile(bin, []byte{0, 1, 2}, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := fileText(t.Context(), bin, "application/octet-stream"); err == nil || !strings.Contains(err.Error(), "x.bin is not text") {
		t.Fatalf("a binary file: %v", err)
	}
}
