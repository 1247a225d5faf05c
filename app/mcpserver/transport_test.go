package mcpserver

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"vroom/app/internal/apptest"
)

// TestMCPInspectorHTTP: the MCP Inspector's CLI, a client nobody here
// wrote, over streamable HTTP with the bearer token: it opens a fixture
// page and observes it, and a wrong token is refused.
func TestMCPInspectorHTTP(t *testing.T) {
	apptest.Inspector(t)
	h := newMCPHarness(t)
	h.serveHTTP(t)
	s := apptest.NewSite(t)
	conn := []string{"--transport", "http", "--server-url", h.url, "--header", "Authorization: Bearer " + h.token}

	opened := apptest.Structured(t, apptest.Inspect(t, append(conn, "--method", "tools/call", "--tool-name", "open", "--tool-arg", "url="+s.URL+"/shop.html")...))
	tab, _ := opened["tab"].(string)
	if tab == "" || !strings.Contains(opened["page"].(string), `button "Place order"`) {
		t.Fatalf("open: %v", opened)
	}
	seen := apptest.Structured(t, apptest.Inspect(t, append(conn, "--method", "tools/call", "--tool-name", "observe", "--tool-arg", "tab="+tab, "--tool-arg", "query=Card")...))
	if page := seen["page"].(string); !strings.Contains(page, `textbox "Card number"`) || strings.Contains(page, "Delivery note") {
		t.Fatalf("observe query=Card: %s", page)
	}

	// The page tools an executor has beyond the original set: navigate in
	// place to the canvas sheet, click a cell at its pixels, type into
	// the editor that takes focus, commit; back to the shop; read its text.
	call := func(tool string, args ...string) map[string]any {
		a := append(conn, "--method", "tools/call", "--tool-name", tool, "--tool-arg", "tab="+tab)
		for _, arg := range args {
			a = append(a, "--tool-arg", arg)
		}
		return apptest.Inspect(t, a...)
	}
	if nav := apptest.Structured(t, call("navigate", "url="+s.URL+"/sheet.html")); nav["navigated"] != true {
		t.Fatalf("navigate: %v", nav)
	}
	apptest.Structured(t, call("click_at", "x=190", "y=75")) // cell B2
	apptest.Structured(t, call("type_focused", "text=Q3"))
	apptest.Structured(t, call("press", "key=Enter"))
	apptest.Structured(t, call("wait", "timeout_s=5")) // until the page is idle: its save has been sent
	s.State(func(s *apptest.Site) {
		if s.Cells["B2"] != "Q3" {
			t.Fatalf("the sheet's cells after click_at, type_focused and Enter: %v", s.Cells)
		}
	})
	if back := apptest.Structured(t, call("back")); back["navigated"] != true || !strings.Contains(back["url"].(string), "shop.html") {
		t.Fatalf("back: %v", back)
	}
	read := call("read_page")
	if text := fmt.Sprint(read["content"]); read["isError"] == true || !strings.Contains(text, "Blue mug") || !strings.Contains(text, `trust=\"untrusted\"`) && !strings.Contains(text, `trust="untrusted"`) {
		t.Fatalf("read_page: %v", read)
	}

	bad := exec.CommandContext(t.Context(), apptest.Inspector(t), "--cli", "--transport", "http", "--server-url", h.url,
		"--header", "Authorization: Bearer wrong", "--method", "tools/list")
	if out, err := bad.CombinedOutput(); err == nil {
		t.Fatalf("the inspector listed tools with a wrong token: %s", out)
	}
}
