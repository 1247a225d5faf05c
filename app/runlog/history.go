package runlog

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"vroom/agents"
)

// historyRows bounds History: the omnibox lists recent runs, not an archive.
const historyRows = 200

// List lists the past runs logged under dir/runs, newest first, at
// most historyRows of them. A log that cannot be read is left out.
func List(dir string) ([]Summary, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "runs", "*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(paths))) // run ids sort by start time
	out := []Summary{}
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

// Find is the history row of the run id logged under dir/runs; false
// when its log cannot be read.
func Find(dir, id string) (Summary, bool) {
	return summarize(filepath.Join(dir, "runs", id+".jsonl"))
}

// summarize reads one run log into its history row. A log that cannot be
// read is left out of the list rather than failing the whole history.
func summarize(path string) (Summary, bool) {
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, false
	}
	defer f.Close()
	// A log cut short (a crash, a full disk) still lists what it has.
	recs, _ := agents.ReadRunLog(f)
	return summarizeRecords(strings.TrimSuffix(filepath.Base(path), ".jsonl"), recs)
}

// summarizeRecords is a run's history row from its log's records.
func summarizeRecords(id string, recs []agents.LogRecord) (Summary, bool) {
	if len(recs) == 0 {
		return Summary{}, false
	}
	rs := Summary{ID: id, Outcome: OutcomeUnfinished, Started: recs[0].Time}
	for _, r := range recs {
		switch r.Event {
		case agents.LogRunStart:
			rs.Task = r.Text
		case agents.LogSpawn:
			rs.Agents++
		case agents.LogKilled:
			rs.Outcome = OutcomeKilled
		case agents.LogRunDone:
			rs.Ended = r.Time
			rs.Summary = r.Text
			if rs.Outcome != OutcomeKilled {
				rs.Outcome = OutcomeFailed
				if r.Success != nil && *r.Success {
					rs.Outcome = OutcomeDone
				}
			}
			if r.Usage != nil {
				rs.Tokens, rs.Cost = r.Usage.Total(), r.Usage.Cost
			}
		}
	}
	return rs, rs.Task != ""
}

// Summary is one past run in the history.
type Summary struct {
	ID      string    `json:"id"`
	Task    string    `json:"task"`
	Outcome Outcome   `json:"outcome"`
	Summary string    `json:"summary,omitempty"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
	Tokens  int       `json:"tokens"`
	Cost    float64   `json:"cost"`
	Agents  int       `json:"agents"`
}
