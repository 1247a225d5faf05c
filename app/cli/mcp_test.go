package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// TestMCPBrowsersFromSettings: with endpoints in the settings, vroom mcp
// opens its tabs in a pool over them, connected at start, and launches no
// Chromium here.
func TestMCPBrowsersFromSettings(t *testing.T) {
	t.Parallel()
	r := apptest.RemoteChromium(t)
	st := config.DefaultSettings()
	st.Browser.Endpoints = []string{r.HTTP}
	var errb bytes.Buffer
	o, err := parseMCPArgs(nil, st, &errb)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, errb.String())
	}
	b, pool, done, err := o.browsers(t.Context(), t.TempDir(), &errb)
	if err != nil {
		t.Fatalf("browsers: %v", err)
	}
	defer done()
	if b != nil || pool == nil {
		t.Fatalf("with endpoints in the settings: a local browser %v, a pool %v", b != nil, pool != nil)
	}
	if st := pool.Status(); len(st) != 1 || !st[0].Connected {
		t.Fatalf("the pool was not connected at start: %+v", st)
	}
}

// TestMCPInspectorStdio: the Inspector starts vroom mcp itself (this test
// binary acting as the command), lists the tools and runs a task.
func TestMCPInspectorStdio(t *testing.T) {
	apptest.Inspector(t)
	needBrowser(t)
	srv := modeltest.New(t)
	s := apptest.NewSite(t)
	apptest.ScriptQuote(srv, s, 0)
	dir := t.TempDir()
	env := []string{"-e", cliEnv + "=1", "-e", "VROOM_DATA_DIR=" + dir, "-e", "VROOM_CONFIG_DIR=" + dir,
		"-e", "OPENAI_API_KEY=sk-test-inspector"} // the inspector passes no D-Bus address: no keyring
	if c := os.Getenv("VROOM_CHROME"); c != "" {
		env = append(env, "-e", "VROOM_CHROME="+c)
	}
	server := []string{"--", os.Args[0], "mcp", "--base-url", srv.URL, "--model", "executor", "--planner-model", "planner"}

	list := apptest.Inspect(t, append(append(env, "--method", "tools/list"), server...)...)
	var names []string
	for _, tool := range list["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	// What a client nobody here wrote sees is the executor's page tools,
	// each of them, and the server's own.
	want := []string{"run_task", "stop_run", "open", "close"}
	for _, def := range agents.PageTools() {
		want = append(want, def.Name)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tools/list through the Inspector is %v, want the executor's page tools and the server's own: %v", names, want)
	}

	res := apptest.Structured(t, apptest.Inspect(t, append(append(env, "--method", "tools/call", "--tool-name", "run_task",
		"--tool-arg", "task=get a quote from the North desk"), server...)...))
	if res["success"] != true || !strings.Contains(res["summary"].(string), "quote 101") {
		t.Fatalf("run_task through the inspector: %v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs", res["run_id"].(string)+".jsonl")); err != nil {
		t.Fatalf("the run's log: %v", err)
	}
}
