package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
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
	stderr     *testkit.LockedBuffer
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
	p := &mcpProcess{data: t.TempDir(), home: t.TempDir(), stderr: &testkit.LockedBuffer{}}
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
