package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFindRunLog: vroom replay takes a run id, "last" or a path.
func TestFindRunLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, id := range []string{"20261130-101010-aaaa", "20261130-121212-bbbb"} {
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for in, want := range map[string]string{
		"20261130-101010-aaaa":       filepath.Join(dir, "20261130-101010-aaaa.jsonl"),
		"20261130-101010-aaaa.jsonl": filepath.Join(dir, "20261130-101010-aaaa.jsonl"),
		"last":                       filepath.Join(dir, "20261130-121212-bbbb.jsonl"),
		filepath.Join(dir, "20261130-121212-bbbb.jsonl"): filepath.Join(dir, "20261130-121212-bbbb.jsonl"),
	} {
		if got, err := findRunLog(dir, in); err != nil || got != want {
			t.Errorf("findRunLog(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := findRunLog(dir, "nope"); err == nil {
		t.Error("a missing run was found")
	}
	if _, err := findRunLog(t.TempDir(), "last"); err == nil {
		t.Error("last found a run in an empty directory")
	}
}
