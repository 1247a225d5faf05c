package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"vroom/agents"
	"vroom/app/config"
)

// Replay is `vroom replay RUN`: RUN is a run id, a run log's path, or
// "last".
func Replay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, "usage: vroom replay RUN   (a run id, a run log's path, or last)")
		if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
			return 0
		}
		return 2
	}
	dir, err := config.DataDir()
	if err != nil {
		fmt.Fprintln(stderr, "vroom replay:", err)
		return 1
	}
	path, err := findRunLog(filepath.Join(dir, "runs"), args[0])
	if err != nil {
		fmt.Fprintln(stderr, "vroom replay:", err)
		return 1
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(stderr, "vroom replay:", err)
		return 1
	}
	defer f.Close()
	recs, err := agents.ReadRunLog(f)
	if err != nil {
		fmt.Fprintln(stderr, "vroom replay:", err)
		if len(recs) == 0 {
			return 1
		}
	}
	if err := agents.Replay(stdout, recs); err != nil {
		fmt.Fprintln(stderr, "vroom replay:", err)
		return 1
	}
	return 0
}

// findRunLog resolves a run id, "last" or a path to a run log file.
func findRunLog(dir, run string) (string, error) {
	if st, err := os.Stat(run); err == nil && !st.IsDir() {
		return run, nil
	}
	if run == "last" {
		m, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if len(m) == 0 {
			return "", fmt.Errorf("no runs in %s", dir)
		}
		sort.Strings(m) // run ids sort by start time
		return m[len(m)-1], nil
	}
	p := filepath.Join(dir, strings.TrimSuffix(run, ".jsonl")+".jsonl")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no run %q in %s", run, dir)
	}
	return p, nil
}
