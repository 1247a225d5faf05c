package apptest

// The MCP Inspector's CLI (npm @modelcontextprotocol/inspector, installed
// by make test under build/mcp-inspector) is a client nobody here wrote.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vroom/internal/testenv"
)

// inspector returns the Inspector's command, or skips (fails in CI) when
// it is not installed.
func Inspector(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../build/mcp-inspector/node_modules/.bin/mcp-inspector")
	if err == nil {
		if _, err = os.Stat(p); err == nil {
			return p
		}
	}
	testenv.Missing(t, "the MCP Inspector (cd build/mcp-inspector && npm ci)")
	return ""
}

// inspect runs the Inspector's CLI with args and decodes its JSON answer.
func Inspect(t *testing.T, args ...string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, Inspector(t), append([]string{"--cli"}, args...)...)
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
func Structured(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	sc, ok := v["structuredContent"].(map[string]any)
	if !ok || v["isError"] == true {
		t.Fatalf("tools/call answered %v", v)
	}
	return sc
}

// InspectError runs the Inspector's CLI with args for a tool call that
// must fail: the Inspector prints the result and exits non-zero. It
// returns the error's text as the client's model reads it.
func InspectError(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, Inspector(t), append([]string{"--cli"}, args...)...)
	cmd.Env = os.Environ()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err == nil {
		t.Fatalf("inspector %v succeeded: %s", args, out)
	}
	var v struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if jerr := json.Unmarshal(out, &v); jerr != nil || !v.IsError || len(v.Content) == 0 {
		t.Fatalf("inspector %v: %v, printed %s\n%s", args, err, out, stderr.String())
	}
	return v.Content[0].Text
}
