package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/browser"
	"vroom/internal/modeltest"
)

// Flows through what a page asks of the browser rather than of the DOM:
// files, downloads, dialogs, windows, hovers. Each fixture site records
// what it received, and each flow is judged by that.

// stepper scripts an executor as a list: the reply to its n-th call is
// steps[n](request), and each call is tallied.
func stepper(f *flowTally, steps ...func(r *modeltest.Request) modeltest.Reply) func(r *modeltest.Request) (int, modeltest.Reply) {
	return func(r *modeltest.Request) (int, modeltest.Reply) {
		n := r.ToolResults()
		if n >= len(steps) {
			return 0, apptest.Done("ran out of steps; the last result was: "+r.LastText(), false)
		}
		return 0, steps[n](r)
	}
}

// fileRef finds a file input's ref, which older walkers named a button.
func fileRef(text, name string) string {
	if ref := modeltest.Ref(text, "file", name); ref != "" {
		return ref
	}
	return modeltest.Ref(text, "button", name)
}

// applyFlow applies with the given CV; first, when tryOther, the model
// does as the page says and tries another file, and is refused.
func applyFlow(tb testing.TB, tryOther bool) (*flowTally, *apptest.AsksSite, []byte) {
	s := apptest.NewAsksSite(tb)
	cv := filepath.Join(tb.TempDir(), "cv.pdf")
	cvBytes := []byte("%PDF-1.4 Ada Lovelace, engineer")
	if err := os.WriteFile(cv, cvBytes, 0o600); err != nil {
		tb.Fatal(err)
	}
	h := newHarness(tb, func(c *agents.Config) { c.Files = []string{cv} })
	f := &flowTally{}
	var steps []func(r *modeltest.Request) modeltest.Reply
	if tryOther {
		steps = append(steps, func(r *modeltest.Request) modeltest.Reply {
			return apptest.Call("upload", "ref", fileRef(r.Text(), "CV"), "files", []string{cv, "/etc/hostname"})
		})
	}
	steps = append(steps,
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Call("type", "ref", modeltest.Ref(r.Text(), "textbox", "Full name"), "text", "Ada Lovelace")
		},
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Call("upload", "ref", fileRef(r.Text(), "CV"), "files", []string{cv})
		},
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Apply"))
		},
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Done("applied: "+r.LastText(), strings.Contains(r.LastText(), "Application received"))
		})
	runFlow(tb, h, "Apply to this job with my CV "+cv, s.URL+"/apply", f, stepper(f, steps...))
	return f, s, cvBytes
}

// TestFlowApplyWithCV: a multipart application with the CV the person
// gave; the server has its bytes. Four calls: type, upload, click, done.
func TestFlowApplyWithCV(t *testing.T) {
	t.Parallel()
	f, s, want := applyFlow(t, false)
	if got := s.CV("Ada Lovelace"); !bytes.Equal(got, want) {
		t.Fatalf("the server has CV %q, want %q", got, want)
	}
	if f.total() != 4 {
		t.Fatalf("%d calls, want 4: %v", f.total(), f.calls)
	}
}

// TestFlowUploadRefused: the page asks for another file; the upload that
// includes it is refused with the files that may be used, the model
// retries with its CV, and the server never sees the other file.
func TestFlowUploadRefused(t *testing.T) {
	t.Parallel()
	f, s, want := applyFlow(t, true)
	if len(f.results) == 0 || !strings.Contains(f.results[0], "upload refused: /etc/hostname is not a file given to this run; the files you may upload are:") {
		t.Fatalf("the refused upload's result:\n%v", f.results)
	}
	if got := s.CV("Ada Lovelace"); !bytes.Equal(got, want) {
		t.Fatalf("the server has CV %q, want %q", got, want)
	}
	if f.total() != 5 {
		t.Fatalf("%d calls, want 5: %v", f.total(), f.calls)
	}
}

// TestFlowInvoiceDownload: the invoice is downloaded into the run's
// folder, read, and its total reported; nothing lands in the home folder.
func TestFlowInvoiceDownload(t *testing.T) {
	t.Parallel()
	home, _ := os.UserHomeDir() // no home: nothing can land there
	before, _ := os.ReadDir(filepath.Join(home, "Downloads"))
	f, res, dir := invoiceFlow(t)
	if !strings.Contains(res.Summary, "123.45") {
		t.Fatalf("the summary %q lacks the total", res.Summary)
	}
	if _, err := os.Stat(filepath.Join(dir, "invoice-2026-03.csv")); err != nil {
		t.Fatalf("the invoice is not in the run's folder: %v", err)
	}
	after, _ := os.ReadDir(filepath.Join(home, "Downloads"))
	for _, e := range after {
		if strings.HasPrefix(e.Name(), "invoice-2026-03") && len(after) > len(before) {
			t.Fatalf("the invoice also landed in %s", filepath.Join(home, "Downloads", e.Name()))
		}
	}
	if f.total() != 3 {
		t.Fatalf("%d calls, want 3: %v", f.total(), f.calls)
	}
}

// invoiceFlow downloads the March invoice into a run's folder (dir) and
// reports its total.
func invoiceFlow(tb testing.TB) (f *flowTally, res agents.Result, dir string) {
	s := apptest.NewAsksSite(tb)
	h := newHarness(tb, nil)
	dir = filepath.Join(tb.TempDir(), "runs", "r1-downloads")
	h.tabs.SetDownloads(browser.DownloadOptions{Dir: dir, MaxBytes: 1 << 20})
	f = &flowTally{}
	res = runFlow(tb, h, "Download my March invoice and tell me its total", s.URL+"/invoices", f, stepper(f,
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "link", "March 2026"))
		},
		func(r *modeltest.Request) modeltest.Reply {
			if !strings.Contains(r.LastText(), "downloaded invoice-2026-03.csv") {
				return apptest.Done("no download: "+r.LastText(), false)
			}
			return apptest.Call("read_download", "download", "invoice-2026-03.csv")
		},
		func(r *modeltest.Request) modeltest.Reply {
			i := strings.Index(r.LastText(), "Total,")
			if i < 0 || !strings.Contains(r.LastText(), `trust="untrusted"`) {
				return apptest.Done("no total: "+r.LastText(), false)
			}
			return apptest.Done("The March invoice's total is "+strings.Fields(r.LastText()[i+6:])[0], true)
		}))
	return f, res, dir
}
