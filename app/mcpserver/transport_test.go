package mcpserver

import (
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

	bad := exec.CommandContext(t.Context(), apptest.Inspector(t), "--cli", "--transport", "http", "--server-url", h.url,
		"--header", "Authorization: Bearer wrong", "--method", "tools/list")
	if out, err := bad.CombinedOutput(); err == nil {
		t.Fatalf("the inspector listed tools with a wrong token: %s", out)
	}
}
