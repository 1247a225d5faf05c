package app

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/internal/testenv"
)

// The MCP Inspector's CLI (npm @modelcontextprotocol/inspector, installed
// by `make test` under build/mcp-inspector) is a client nobody here wrote.
// Over stdio it starts `vroom mcp` itself (this test binary acting as the
// command), lists the tools and runs a task; over streamable HTTP, with
// the bearer token, it opens a fixture page and observes it.

// inspector returns the Inspector's command, or skips (fails in CI) when
// it is not installed.
func inspector(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../build/mcp-inspector/node_modules/.bin/mcp-inspector")
	if err == nil {
		if _, err = os.Stat(p); err == nil {
			return p
		}
	}
	testenv.Missing(t, "the MCP Inspector (cd build/mcp-inspector && npm ci)")
	return ""
}

// inspect runs the Inspector's CLI with args and decodes its JSON answer.
func inspect(t *testing.T, args ...string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, inspector(t), append([]string{"--cli"}, args...)...)
	cmd.Env = os.Environ()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out, stderr.String())
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("inspector %v printed %s (%v)\n%s", args, out, err, stderr.String())
	}
	return v
}

// structured is a tools/call answer's structured content.
func structured(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	sc, ok := v["structuredContent"].(map[string]any)
	if !ok || v["isError"] == true {
		t.Fatalf("tools/call answered %v", v)
	}
	return sc
}

func TestMCPInspectorStdio(t *testing.T) {
	inspector(t)
	h := newMCPHarness(t) // for its browser check and scripted model
	s := apptest.NewSite(t)
	scriptQuote(h.srv, s, 0)
	dir := t.TempDir()
	env := []string{"-e", cliEnv + "=1", "-e", "VROOM_DATA_DIR=" + dir, "-e", "VROOM_CONFIG_DIR=" + dir,
		"-e", "OPENAI_API_KEY=sk-test-inspector"} // the inspector passes no D-Bus address: no keyring
	if c := os.Getenv("VROOM_CHROME"); c != "" {
		env = append(env, "-e", "VROOM_CHROME="+c)
	}
	server := []string{"--", os.Args[0], "mcp", "--base-url", h.srv.URL, "--model", "executor", "--planner-model", "planner"}

	list := inspect(t, append(append(env, "--method", "tools/list"), server...)...)
	var names []string
	for _, tool := range list["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	for _, want := range []string{"run_task", "stop_run", "open", "observe", "click", "type", "select", "press", "scroll", "wait", "screenshot", "close"} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			t.Fatalf("tools/list lacks %s: %v", want, names)
		}
	}

	res := structured(t, inspect(t, append(append(env, "--method", "tools/call", "--tool-name", "run_task",
		"--tool-arg", "task=get a quote from the North desk"), server...)...))
	if res["success"] != true || !strings.Contains(res["summary"].(string), "quote 101") {
		t.Fatalf("run_task through the inspector: %v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs", res["run_id"].(string)+".jsonl")); err != nil {
		t.Fatalf("the run's log: %v", err)
	}
}

func TestMCPInspectorHTTP(t *testing.T) {
	inspector(t)
	h := newMCPHarness(t)
	h.serveHTTP(t)
	s := apptest.NewSite(t)
	conn := []string{"--transport", "http", "--server-url", h.url, "--header", "Authorization: Bearer " + h.token}

	opened := structured(t, inspect(t, append(conn, "--method", "tools/call", "--tool-name", "open", "--tool-arg", "url="+s.URL+"/shop.html")...))
	tab, _ := opened["tab"].(string)
	if tab == "" || !strings.Contains(opened["page"].(string), `button "Place order"`) {
		t.Fatalf("open: %v", opened)
	}
	seen := structured(t, inspect(t, append(conn, "--method", "tools/call", "--tool-name", "observe", "--tool-arg", "tab="+tab, "--tool-arg", "query=Card")...))
	if page := seen["page"].(string); !strings.Contains(page, `textbox "Card number"`) || strings.Contains(page, "Delivery note") {
		t.Fatalf("observe query=Card: %s", page)
	}

	bad := exec.CommandContext(t.Context(), inspector(t), "--cli", "--transport", "http", "--server-url", h.url,
		"--header", "Authorization: Bearer wrong", "--method", "tools/list")
	if out, err := bad.CombinedOutput(); err == nil {
		t.Fatalf("the inspector listed tools with a wrong token: %s", out)
	}
}
