package mcpserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/internal/modeltest"
)

// A client's tab uploads only the files vroom mcp was started with: the
// given CV reaches the site whole; another file on the machine, which a
// page might talk the client's model into sending, is refused with the
// files that may be used, and the site never sees it.
func TestMCPUploadOnlyGivenFiles(t *testing.T) {
	cv := filepath.Join(t.TempDir(), "cv.pdf")
	if err := os.WriteFile(cv, []byte("%PDF-1.4 Jordan Lee's CV"), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /apply", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<!doctype html><title>Apply</title><form method="post" action="/apply" enctype="multipart/form-data">
<label>CV <input type="file" name="cv"></label><button>Apply</button></form>`)
	})
	mux.HandleFunc("POST /apply", func(w http.ResponseWriter, r *http.Request) {
		if f, _, err := r.FormFile("cv"); err == nil {
			b, _ := io.ReadAll(f) // a short read fails the test's comparison below
			mu.Lock()
			got = append(got, string(b))
			mu.Unlock()
		}
		io.WriteString(w, "<!doctype html><title>Thanks</title><p>Application received.</p>")
	})
	site := httptest.NewServer(mux)
	defer site.Close()

	h := newMCPHarness(t, func(e *Env) { e.Files = []string{cv} })
	cs := h.connect(t, "stdio", nil)
	var page pageResult
	callTool(t, cs, "open", map[string]any{"url": site.URL + "/apply"}, &page)
	input := modeltest.Ref(page.Page, "file", "CV")
	if input == "" {
		t.Fatalf("no file field in %s", page.Page)
	}
	refused := callToolErr(t, cs, "upload", map[string]any{"tab": page.Tab, "ref": input, "files": []string{"/etc/hostname"}})
	if !strings.Contains(refused, "not a file given") || !strings.Contains(refused, cv) {
		t.Fatalf("another file: %q, want a refusal naming the given files", refused)
	}
	var up actResult
	callTool(t, cs, "upload", map[string]any{"tab": page.Tab, "ref": input, "files": []string{cv}}, &up)
	var sent actResult
	callTool(t, cs, "click", map[string]any{"tab": page.Tab, "ref": modeltest.Ref(page.Page, "button", "Apply")}, &sent)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "%PDF-1.4 Jordan Lee's CV" {
		t.Fatalf("the site received %q", got)
	}
}

// callToolErr calls a tool that must fail and returns the error it gave
// the client's model.
func callToolErr(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError || len(res.Content) == 0 {
		t.Fatalf("%s succeeded: %+v", name, res.Content)
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if text == nil {
		t.Fatalf("%s: no text in the error", name)
	}
	return text.Text
}
