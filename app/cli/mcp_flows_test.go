package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// The flows of what a page asks of the browser (files, downloads, drags,
// hovers, dialogs, windows, a canvas), driven by the MCP Inspector's CLI —
// a client nobody here wrote — through `vroom mcp --http` running as a
// process of its own with its own Chromium, against the asks fixture
// site. The Inspector makes one call per process, as a client that
// reconnects does: the tab id passes from call to call, and the server's
// state (the tab, its lease, its downloads) outlives each connection.

// mcpProcess is `vroom mcp --http` running, with its data dir and home.
type mcpProcess struct {
	url, token string
	data, home string
	stderr     *lockedBuffer
}

// lockedBuffer is a buffer a process writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var (
	mcpURLRE   = regexp.MustCompile(`streamable HTTP at (http://\S+/mcp)`)
	mcpTokenRE = regexp.MustCompile(`Authorization: Bearer (\S+)`)
)

// startMCP starts `vroom mcp --http 127.0.0.1:0 args...` with a data dir
// and a home of its own, and returns once it printed its URL and token.
// It is stopped when the test ends.
func startMCP(t *testing.T, args ...string) *mcpProcess {
	t.Helper()
	apptest.NeedChromium(t)
	p := &mcpProcess{data: t.TempDir(), home: t.TempDir(), stderr: &lockedBuffer{}}
	cmd := vroomCmd(p.data, "sk-test-mcp", []string{"HOME=" + p.home, "XDG_DATA_HOME=", "XDG_CONFIG_HOME="},
		append([]string{"mcp", "--http", "127.0.0.1:0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(60 * time.Second)
	for p.url == "" || p.token == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("vroom mcp exited before serving:\n%s", p.stderr)
			}
			if m := mcpURLRE.FindStringSubmatch(l); m != nil {
				p.url = m[1]
			}
			if m := mcpTokenRE.FindStringSubmatch(l); m != nil {
				p.token = m[1]
			}
		case <-deadline:
			t.Fatalf("vroom mcp did not print its URL within 60 s:\n%s", p.stderr)
		}
	}
	go func() {
		for range lines { // stdout stays drained so the server never blocks on it
		}
	}()
	return p
}

// conn are the Inspector's arguments that reach the process.
func (p *mcpProcess) conn() []string {
	return []string{"--transport", "http", "--server-url", p.url, "--header", "Authorization: Bearer " + p.token}
}

// callArgs are the Inspector's arguments of a call of tool with args.
func (p *mcpProcess) callArgs(t *testing.T, tool string, args map[string]any) []string {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return append(p.conn(), "--method", "tools/call", "--tool-name", tool, "--tool-args-json", string(b))
}

// call calls tool, which must succeed, and returns what the Inspector
// printed: content and structuredContent.
func (p *mcpProcess) call(t *testing.T, tool string, args map[string]any) map[string]any {
	t.Helper()
	return apptest.Inspect(t, p.callArgs(t, tool, args)...)
}

// act calls tool and returns its structured result.
func (p *mcpProcess) act(t *testing.T, tool string, args map[string]any) map[string]any {
	t.Helper()
	return apptest.Structured(t, p.call(t, tool, args))
}

// text calls tool and returns its text content.
func (p *mcpProcess) text(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	res := p.call(t, tool, args)
	var parts []string
	content, _ := res["content"].([]any)
	for _, c := range content {
		if m, ok := c.(map[string]any); ok && m["type"] == "text" {
			parts = append(parts, m["text"].(string))
		}
	}
	return strings.Join(parts, "\n")
}

// fail calls tool, which must fail, and returns its error's text.
func (p *mcpProcess) fail(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	return apptest.InspectError(t, p.callArgs(t, tool, args)...)
}

// open opens url in a new tab and returns its id and page.
func (p *mcpProcess) open(t *testing.T, url string) (tab, page string) {
	t.Helper()
	res := p.act(t, "open", map[string]any{"url": url})
	tab, _ = res["tab"].(string)
	page, _ = res["page"].(string)
	if tab == "" {
		t.Fatalf("open %s: %v", url, res)
	}
	return tab, page
}

// changes is an action's result's verdict and what changed.
func changes(res map[string]any) string {
	v, _ := res["verdict"].(string)
	c, _ := res["changes"].(string)
	return v + "\n" + c
}

// oneLine fails the test unless err is one line naming all of names.
func oneLine(t *testing.T, what, err string, names ...string) {
	t.Helper()
	t.Logf("%s: %s", what, err)
	if strings.Contains(strings.TrimSpace(err), "\n") {
		t.Errorf("%s: the error is not one line: %q", what, err)
	}
	for _, n := range names {
		if !strings.Contains(err, n) {
			t.Errorf("%s: the error %q does not name %q", what, err, n)
		}
	}
}

// ref is a control's ref in page (modeltest.Ref), failing the test when
// it is not there.
func ref(t *testing.T, page, role, name string) string {
	t.Helper()
	r := modeltest.Ref(page, role, name)
	if r == "" {
		t.Fatalf("no %s %q in:\n%s", role, name, page)
	}
	return r
}

// writeFile writes b to a new file name in a temporary folder.
func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// filesUnder lists the regular files under dir whose name contains sub.
func filesUnder(t *testing.T, dir, sub string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.Contains(d.Name(), sub) {
			out = append(out, path)
		}
		return nil // an unreadable folder (a browser's lock) is not what is looked for
	})
	return out
}

// waitEvent waits until the site recorded e.
func waitEvent(t *testing.T, s *apptest.AsksSite, e string) {
	t.Helper()
	testkit.WaitFor(t, 10*time.Second, "the site to record "+e, func() bool { return s.HasEvent(e) })
}

// dumpOnFailure prints the server's stderr when the test failed.
func (p *mcpProcess) dumpOnFailure(t *testing.T) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("vroom mcp's stderr:\n%s", p.stderr)
		}
	})
}

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
	cv := writeFile(t, "cv.pdf", []byte("%PDF-1.4 Ada Lovelace, engineer"))
	gone := writeFile(t, "cover-letter.txt", []byte("Dear team"))
	p := startMCP(t, "--file", cv, "--file", gone)
	p.dumpOnFailure(t)
	// A file given at start and moved away since.
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}

	t.Run("apply with the CV", func(t *testing.T) {
		t.Parallel()
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
	})

	t.Run("bad input", func(t *testing.T) {
		t.Parallel()
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
	})

	t.Run("invoice total", func(t *testing.T) {
		t.Parallel()
		s := apptest.NewAsksSite(t)
		tab, page := p.open(t, s.URL+"/invoices")
		got := p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, page, "link", "March 2026")})
		if !strings.Contains(got["verdict"].(string), "downloaded invoice-2026-03.csv") {
			t.Fatalf("the click's verdict: %v", got["verdict"])
		}
		if list := p.text(t, "downloads", map[string]any{"tab": tab}); !strings.Contains(list, `"invoice-2026-03.csv"`) || !strings.Contains(list, "done") {
			t.Errorf("downloads: %s", list)
		}
		read := p.text(t, "read_download", map[string]any{"tab": tab, "download": "invoice-2026-03.csv"})
		if !strings.Contains(read, "Total,123.45") || !strings.Contains(read, `trust="untrusted"`) || !strings.Contains(read, "(the end of the file)") {
			t.Fatalf("read_download: %s", read)
		}
		if _, err := exec.LookPath("pdftotext"); err != nil {
			testenv.Missing(t, "pdftotext (poppler-utils; build/deps.sh installs it)")
		}
		p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, page, "link", "April 2026")})
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
	})

	for _, board := range []struct{ path, role, card string }{
		{"/board", "draggable", "Fix the login bug"},
		{"/sortable", "button", "Book flights"},
	} {
		t.Run("drag on "+board.path, func(t *testing.T) {
			t.Parallel()
			s := apptest.NewAsksSite(t)
			tab, page := p.open(t, s.URL+board.path)
			p.act(t, "drag", map[string]any{"tab": tab, "ref": ref(t, page, board.role, board.card), "to": ref(t, page, "region", "Done")})
			waitEvent(t, s, board.card+" to Done")
		})
	}

	t.Run("hover menu", func(t *testing.T) {
		t.Parallel()
		s := apptest.NewAsksSite(t)
		tab, page := p.open(t, s.URL+"/menu")
		shown := p.act(t, "hover", map[string]any{"tab": tab, "ref": ref(t, page, "link", "Account")})
		went := p.act(t, "click", map[string]any{"tab": tab, "ref": ref(t, changes(shown), "link", "Security")})
		if went["navigated"] != true || !strings.HasSuffix(went["url"].(string), "/security") {
			t.Fatalf("the click on Security: %v", went)
		}
	})

	t.Run("popup sign-in", func(t *testing.T) {
		t.Parallel()
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
	})

	t.Run("confirm prompt and delete", func(t *testing.T) {
		t.Parallel()
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
	})

	// The Inspector's CLI has no user to ask, so it cannot show an
	// elicitation: the SDK's own client, which can, is the user here.
	t.Run("delete asks the user", func(t *testing.T) {
		t.Parallel()
		s := apptest.NewAsksSite(t)
		cs, asked := p.elicitingClient(t, "allow once")
		tab, page := sdkOpen(t, cs, s.URL+"/project")
		sdkCall(t, cs, "click", map[string]any{"tab": tab, "ref": ref(t, page, "button", "Clean up")})
		sdkCall(t, cs, "dialog", map[string]any{"tab": tab, "accept": true})
		waitEvent(t, s, "deleted")
		if got := asked(); len(got) != 1 || !strings.Contains(got[0], "Delete all 3 files permanently?") {
			t.Fatalf("the user was asked %q", got)
		}
	})

	t.Run("leave site", func(t *testing.T) {
		t.Parallel()
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
	})

	t.Run("alert loop", func(t *testing.T) {
		t.Parallel()
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
	})

	t.Run("canvas sheet", func(t *testing.T) {
		t.Parallel()
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
	})
}

// bearer adds the token to every request of a client.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// elicitingClient connects the SDK's client over HTTP, declaring
// elicitation and answering each confirmation with decision; asked
// returns what the user was asked.
func (p *mcpProcess) elicitingClient(t *testing.T, decision string) (cs *mcp.ClientSession, asked func() []string) {
	t.Helper()
	var mu sync.Mutex
	var msgs []string
	c := mcp.NewClient(&mcp.Implementation{Name: "vroom-test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			msgs = append(msgs, r.Params.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": decision}}, nil
		}})
	tr := &mcp.StreamableClientTransport{Endpoint: p.url, HTTPClient: &http.Client{Transport: bearer{p.token, http.DefaultTransport}}}
	cs, err := c.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), msgs...)
	}
}

// sdkCall calls tool through cs, which must succeed, and returns its
// structured result.
func sdkCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	out, _ := res.StructuredContent.(map[string]any)
	if res.IsError || out == nil {
		b, _ := json.Marshal(res.Content)
		t.Fatalf("%s answered %s", tool, b)
	}
	return out
}

// sdkOpen opens url through cs and returns the tab and its page.
func sdkOpen(t *testing.T, cs *mcp.ClientSession, url string) (tab, page string) {
	t.Helper()
	res := sdkCall(t, cs, "open", map[string]any{"url": url})
	tab, _ = res["tab"].(string)
	page, _ = res["page"].(string)
	return tab, page
}
