package app

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"vroom/agents"
)

// historyRows bounds History: the omnibox lists recent runs, not an archive.
const historyRows = 200

// History lists past runs from their logs, newest first.
func (a *App) History() ([]RunSummary, error) {
	dir, err := a.dataDir()
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	paths, err := filepath.Glob(filepath.Join(dir, "runs", "*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(paths))) // run ids sort by start time
	out := []RunSummary{}
	for _, p := range paths {
		if len(out) == historyRows {
			break
		}
		if rs, ok := summarize(p); ok {
			out = append(out, rs)
		}
	}
	return out, nil
}

// summarize reads one run log into its history row. A log that cannot be
// read is left out of the list rather than failing the whole history.
func summarize(path string) (RunSummary, bool) {
	f, err := os.Open(path)
	if err != nil {
		return RunSummary{}, false
	}
	defer f.Close()
	// A log cut short (a crash, a full disk) still lists what it has.
	recs, _ := agents.ReadRunLog(f)
	return summarizeRecords(strings.TrimSuffix(filepath.Base(path), ".jsonl"), recs)
}

// summarizeRecords is a run's history row from its log's records.
func summarizeRecords(id string, recs []agents.LogRecord) (RunSummary, bool) {
	if len(recs) == 0 {
		return RunSummary{}, false
	}
	rs := RunSummary{ID: id, Outcome: "unfinished", Started: recs[0].Time}
	for _, r := range recs {
		switch r.Event {
		case agents.LogRunStart:
			rs.Task = r.Text
		case agents.LogSpawn:
			rs.Agents++
		case agents.LogKilled:
			rs.Outcome = "killed"
		case agents.LogRunDone:
			rs.Ended = r.Time
			rs.Summary = r.Text
			if rs.Outcome != "killed" {
				rs.Outcome = "failed"
				if r.Success != nil && *r.Success {
					rs.Outcome = "done"
				}
			}
			if r.Usage != nil {
				rs.Tokens, rs.Cost = r.Usage.Total(), r.Usage.Cost
			}
		}
	}
	return rs, rs.Task != ""
}
