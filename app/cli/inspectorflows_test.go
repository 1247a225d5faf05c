package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// TestMCPInspectorFlows: each flow an executor does, done by the
// Inspector through vroom mcp, and judged by the fixture site: a CV
// uploaded (only the file given with --file), invoices (CSV, PDF) downloaded into
// the session's folder and their totals read, cards dragged on two boards, a
// hover menu, a sign-in popup, confirm, prompt and "leave site?"
// answered, a confirm to delete denied (the Inspector cannot ask its
// user) and approved by the user of the SDK's client, which can ask, an
// alert loop and a canvas sheet; and bad input, each a one-line error.
func TestMCPInspectorFlows(t *testing.T) {
	apptest.Inspector(t)
	e := flowEnv{cv: writeFile(t, "cv.pdf", []byte("%PDF-1.4 Ada Lovelace, engineer")),
		gone: writeFile(t, "cover-letter.txt", []byte("Dear team"))}
	e.p = startMCP(t, "--file", e.cv, "--file", e.gone)
	e.p.dumpOnFailure(t)
	// A file given at start and moved away since.
	if err := os.Remove(e.gone); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		run  func(t *testing.T, e flowEnv)
	}{
		{"apply with the CV", flowApply},
		{"bad input", flowBadInput},
		{"invoice total", flowInvoices},
		{"drag on the HTML5 board", flowDrag("/board", "draggable", "Fix the login bug")},
		{"drag on the pointer sortable", flowDrag("/sortable", "button", "Book flights")},
		{"hover menu", flowHover},
		{"popup sign-in", flowPopup},
		{"confirm prompt and delete", flowConfirms},
		{"delete asks the user", flowDeleteAsks},
		{"leave site", flowLeaveSite},
		{"alert loop", flowAlertLoop},
		{"canvas sheet", flowCanvas},
	} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			f.run(t, e)
		})
	}
}

// flowEnv is what the flows share: the vroom mcp process, the CV it was
// given and a file given but gone since.
type flowEnv struct {
	p        *mcpProcess
	cv, gone string
}

// flowApply applies with the CV given with --file, after another file is
// refused; the site has its bytes.
func flowApply(t *testing.T, e flowEnv) {
	p, cv := e.p, e.cv
	s := apptest.NewAsksSite(t)
	tab, page := p.open(t, s.URL+"/apply")
	input := ref(t, page, "file", "CV")
	refused := p.fail(t, "upload", map[string]any{"tab": tab, "ref": input, "files": []string{"/etc/hostname"}})
	oneLine(t, "a file not given", refused, "/etc/hostname", "not a file given", cv)
	p.act(t, "type", map[string]any{"tab": tab, "ref": ref(t, page, "textbox", "Full name"), "text": "Ada Lovelace"})
	p.act(t, "upload", map[string]any{"tab": tab, "ref": input, "files": []string{cv}})
	sent := p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, page, "button", "Apply")})
	if !strings.Contains(changes(sent), "Application received from Ada Lovelace") {
		t.Errorf("the click's result: %s", changes(sent))
	}
	if got := s.CV("Ada Lovelace"); string(got) != "%PDF-1.4 Ada Lovelace, engineer" {
		t.Fatalf("the site has CV %q (applicants %v)", got, s.Applicants())
	}
}

// flowBadInput: a file given but gone, dialog with none open, a drag from
// a card that vanished, a download over the cap, one that is not there:
// each a one-line error naming what is wrong, and nothing left anywhere.
func flowBadInput(t *testing.T, e flowEnv) {
	p, gone := e.p, e.gone
	s := apptest.NewAsksSite(t)
	tab, page := p.open(t, s.URL+"/apply")
	missing := p.fail(t, "upload", map[string]any{"tab": tab, "ref": ref(t, page, "file", "CV"), "files": []string{gone}})
	oneLine(t, "a missing file", missing, gone, "cannot be read")

	none := p.fail(t, "dialog", map[string]any{"tab": tab, "accept": true})
	oneLine(t, "dialog with none open", none, "no dialog")
	if none != "dialog: no dialog is open" {
		t.Errorf("dialog with none open says %q, want the action named once", none)
	}

	tab, page = p.open(t, s.URL+"/board")
	card := ref(t, page, "draggable", "Fix the login bug")
	p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, page, "button", "Clear the board")})
	vanished := p.fail(t, "drag", map[string]any{"tab": tab, "ref": card, "dx": 200})
	oneLine(t, "a drag from a vanished card", vanished, card, "no longer on the page")
	if strings.Count(vanished, "drag ") != 1 {
		t.Errorf("a drag from a vanished card: %q names the action more than once", vanished)
	}

	tab, page = p.open(t, s.URL+"/invoices")
	got := p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, page, "link", "Backup of all years")})
	if v := got["verdict"].(string); !strings.Contains(v, "huge.bin failed") || !strings.Contains(v, "cap") {
		t.Errorf("a download over the cap: %s", v)
	}
	over := p.fail(t, "read_download", map[string]any{"tab": tab, "download": "huge.bin"})
	oneLine(t, "reading a download over the cap", over, "huge.bin", "larger than the cap")
	unknown := p.fail(t, "read_download", map[string]any{"tab": tab, "download": "march.csv"})
	oneLine(t, "reading a download there is not", unknown, "march.csv", "no such download")
	if left := append(filesUnder(t, p.data, "huge"), filesUnder(t, p.home, "huge")...); len(left) != 0 {
		t.Errorf("a download over the cap left %v", left)
	}
}

// flowInvoices downloads the March (CSV) and April (PDF) invoices and
// reads their totals; the files are in the session's folder, none in the
// home folder.
func flowInvoices(t *testing.T, e flowEnv) {
	p := e.p
	s := apptest.NewAsksSite(t)
	tab, page := p.open(t, s.URL+"/invoices")
	got := p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, page, "link", "March 2026")})
	if !strings.Contains(got["verdict"].(string), "downloaded invoice-2026-03.csv") {
		t.Logf("the click's verdict: %v", got["verdict"])
	}
	p.awaitDownload(t, tab, "invoice-2026-03.csv")
	read := p.text(t, "read_download", map[string]any{"tab": tab, "download": "invoice-2026-03.csv"})
	if !strings.Contains(read, "Total,123.45") || !strings.Contains(read, `trust="untrusted"`) || !strings.Contains(read, "(the end of the file)") {
		t.Fatalf("read_download: %s", read)
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		testenv.Missing(t, "pdftotext (poppler-utils; build/deps.sh installs it)")
	}
	p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, page, "link", "April 2026")})
	p.awaitDownload(t, tab, "invoice-2026-04.pdf")
	pdf := p.text(t, "read_download", map[string]any{"tab": tab, "download": "invoice-2026-04.pdf"})
	if !strings.Contains(pdf, "Total due: 98.10 EUR") || !strings.Contains(pdf, `trust="untrusted"`) {
		t.Fatalf("read_download of the PDF: %s", pdf)
	}
	files := filesUnder(t, filepath.Join(p.data, "mcp"), "invoice-2026-03")
	if len(files) != 1 || !strings.HasSuffix(filepath.Dir(files[0]), "-downloads") {
		t.Errorf("the invoice under the session's folder: %v", files)
	}
	if home := filesUnder(t, p.home, "invoice"); len(home) != 0 {
		t.Errorf("the invoice also landed in the home folder: %v", home)
	}
}

// flowHover reaches an item shown only on hover.
func flowHover(t *testing.T, e flowEnv) {
	p := e.p
	s := apptest.NewAsksSite(t)
	tab, page := p.open(t, s.URL+"/menu")
	shown := p.act(t, "hover", map[string]any{"tab": tab, "ref": ref(t, page, "link", "Account")})
	went := p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, changes(shown), "link", "Security")})
	if went["navigated"] != true || !strings.HasSuffix(went["url"].(string), "/security") {
		t.Fatalf("the click on Security: %v", went)
	}
}

// flowPopup signs in through the provider's popup, which takes the tab's
// view; the view comes back to the opener, which shows the sign-in.
func flowPopup(t *testing.T, e flowEnv) {
	p := e.p
	s := apptest.NewAsksSite(t)
	tab, page := p.open(t, s.URL+"/login")
	opened := p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, page, "button", "Example ID")})
	if !strings.Contains(opened["verdict"].(string), "your view is now that window") {
		t.Fatalf("the click's verdict: %v", opened["verdict"])
	}
	popup := changes(opened)
	p.act(t, "type", map[string]any{"tab": tab, "ref": ref(t, popup, "textbox", "Email"), "text": "ada@example.com"})
	back := p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, popup, "button", "Continue")})
	if !strings.Contains(back["verdict"].(string), "your view is back") {
		t.Fatalf("after Continue: %v", back["verdict"])
	}
	if w := p.act(t, "wait", map[string]any{"tab": tab, "text": "Signed in as ada@example.com"}); w["met"] != true {
		t.Fatalf("the opener never showed the sign-in: %v", w)
	}
	if got := s.Signins(); len(got) != 1 || got[0] != "ada@example.com" {
		t.Fatalf("the provider saw sign-ins %v", got)
	}
	waitEvent(t, s, "signed-in:ada@example.com")
}

// flowConfirms answers a confirm and a prompt; accepting a confirm to
// delete is denied, since the Inspector cannot ask its user, and the
// dialog dismissed.
func flowConfirms(t *testing.T, e flowEnv) {
	p := e.p
	s := apptest.NewAsksSite(t)
	tab, page := p.open(t, s.URL+"/project")
	asked := p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, page, "button", "Archive")})
	if d, _ := asked["dialog"].(map[string]any); d["kind"] != "confirm" || d["message"] != "Archive this project?" {
		t.Fatalf("the click's dialog: %v", asked)
	}
	p.act(t, "dialog", map[string]any{"tab": tab, "accept": true})
	waitEvent(t, s, "archived")

	p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, page, "button", "Rename")})
	p.act(t, "dialog", map[string]any{"tab": tab, "accept": true, "text": "Artemis"})
	waitEvent(t, s, "renamed:Artemis")

	// Deleting needs the user; the Inspector cannot ask its own.
	asked = p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, page, "button", "Clean up")})
	if d, _ := asked["dialog"].(map[string]any); d["kind"] != "confirm" || !strings.Contains(d["message"].(string), "Delete") {
		t.Fatalf("the click's dialog: %v", asked)
	}
	denied := p.fail(t, "dialog", map[string]any{"tab": tab, "accept": true})
	oneLine(t, "accepting a delete", denied, "refused", "Delete all 3 files", "elicitation", "dismissed")
	waitEvent(t, s, "kept")
	if s.HasEvent("deleted") {
		t.Fatalf("the files were deleted without the user: %v", s.Events())
	}
}

// flowDeleteAsks accepts a confirm to delete through the SDK's client,
// whose user allows it when asked: the Inspector's CLI has no user to ask,
// so it cannot show an elicitation.
func flowDeleteAsks(t *testing.T, e flowEnv) {
	p := e.p
	s := apptest.NewAsksSite(t)
	cs, asked := p.elicitingClient(t, "allow once")
	tab, page := sdkOpen(t, cs, s.URL+"/project")
	sdkCall(t, cs, "click", map[string]any{"tab": tab, "ref": ref(t, page, "button", "Clean up")})
	sdkCall(t, cs, "dialog", map[string]any{"tab": tab, "accept": true})
	waitEvent(t, s, "deleted")
	if got := asked(); len(got) != 1 || !strings.Contains(got[0], "Delete all 3 files permanently?") {
		t.Fatalf("the user was asked %q", got)
	}
}

// flowLeaveSite leaves a page with unsaved notes, answering "Leave site?".
func flowLeaveSite(t *testing.T, e flowEnv) {
	p := e.p
	s := apptest.NewAsksSite(t)
	tab, page := p.open(t, s.URL+"/editor")
	p.act(t, "type", map[string]any{"tab": tab, "ref": ref(t, page, "textbox", "Notes"), "text": "draft"})
	asked := p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, page, "link", "Security")})
	if d, _ := asked["dialog"].(map[string]any); d["kind"] != "beforeunload" {
		t.Fatalf("the click's dialog: %v", asked)
	}
	left := p.act(t, "dialog", map[string]any{"tab": tab, "accept": true})
	if !strings.Contains(changes(left), "Security settings") {
		w := p.act(t, "wait", map[string]any{"tab": tab, "url": "/security"})
		if w["met"] != true {
			t.Fatalf("the page was not left: %v, %v", left, w)
		}
	}
}

// flowAlertLoop ends a loop of twenty alerts: the browser accepts the
// first of a burst and holds the next for the holder, each answer one call
// whose result says whether another waits.
func flowAlertLoop(t *testing.T, e flowEnv) {
	p := e.p
	s := apptest.NewAsksSite(t)
	tab, page := p.open(t, s.URL+"/alerts")
	res := p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, page, "button", "Start")})
	if !strings.Contains(res["verdict"].(string), "Are you still there?") {
		t.Fatalf("the click's verdict: %v", res["verdict"])
	}
	// The browser accepts the first alerts and holds the next of a
	// burst for the holder: each answer is one call, and its result
	// says whether another waits, until the loop is over.
	answers := 0
	for res["dialog"] != nil {
		if answers++; answers > 20 {
			t.Fatalf("still a dialog after %d answers: %v", answers-1, res)
		}
		res = p.act(t, "dialog", map[string]any{"tab": tab, "accept": true})
	}
	waitEvent(t, s, "loop-done")
	t.Logf("the loop of 20 alerts ended after the click and %d answers", answers)
	p.act(t, "observe", map[string]any{"tab": tab}) // the tab still answers
}

// flowCanvas edits a canvas sheet's cell with screenshot, click_at,
// type_focused and Enter.
func flowCanvas(t *testing.T, e flowEnv) {
	p := e.p
	s := apptest.NewAsksSite(t)
	tab, _ := p.open(t, s.URL+"/sheet")
	shot := p.call(t, "screenshot", map[string]any{"tab": tab})
	if c, _ := shot["content"].([]any); len(c) == 0 || c[0].(map[string]any)["type"] != "image" {
		t.Fatalf("screenshot: %v", shot["content"])
	}
	// B2: column B is 100-200 px, row 2 is 50-75 px under the header.
	p.act(t, "click_at", map[string]any{"tab": tab, "x": 150, "y": 62})
	p.act(t, "type_focused", map[string]any{"tab": tab, "text": "42"})
	p.act(t, "press", map[string]any{"tab": tab, "key": "Enter"})
	waitEvent(t, s, "B2=42")
}

// flowDrag moves card to Done on the board at path with one drag.
func flowDrag(path, role, card string) func(t *testing.T, e flowEnv) {
	return func(t *testing.T, e flowEnv) {
		s := apptest.NewAsksSite(t)
		tab, page := e.p.open(t, s.URL+path)
		e.p.act(t, "drag", map[string]any{"tab": tab, "ref": ref(t, page, role, card), "to": ref(t, page, "region", "Done")})
		waitEvent(t, s, card+" to Done")
	}
}

// awaitDownload looks at the downloads, as a careful client does when the
// click's verdict did not report one, until name is done. On a loaded
// machine the browser may tell of the download only after the click's
// result was given.
func (p *mcpProcess) awaitDownload(t *testing.T, tab, name string) {
	t.Helper()
	testkit.WaitFor(t, 60*time.Second, name+" in downloads", func() bool {
		for _, l := range strings.Split(p.text(t, "downloads", map[string]any{"tab": tab}), "\n") {
			if strings.Contains(l, `"`+name+`"`) && strings.HasSuffix(l, " done") {
				return true
			}
		}
		return false
	})
}
