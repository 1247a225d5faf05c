package runlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"vroom/agents"
)

// Errors Replay returns.
var (
	// ErrBadRunID is returned for an id that is not a run id: only ids
	// agents.NewRunID makes are accepted, so no id can name a file outside
	// the runs directory.
	ErrBadRunID = errors.New("not a run id")
	// ErrNoSuchRun is returned when no log exists for a well-formed id.
	ErrNoSuchRun = errors.New("no such run")
)

// runIDRE matches agents.NewRunID: start time, then four hex digits.
var runIDRE = regexp.MustCompile(`^[0-9]{8}-[0-9]{6}-[0-9a-f]{4}$`)

// maxReplayEntries bounds a replay's timeline, so a runaway run's log
// cannot make the UI render without end; the rest is cut and the replay
// says so.
const maxReplayEntries = 5000

// Who names an entry's actor besides the planner and the agents.
const (
	// WhoYou is the person: corrections, answers, take-overs.
	WhoYou = "you"
	// WhoSystem is the run itself: start, end, kill switch, notices.
	WhoSystem = "system"
)

// Replay is a past run to play back: its history row and what happened,
// in order. It is built from the run log alone, so it holds nothing the
// log redacted and playing it drives no browser.
type Replay struct {
	Run Summary `json:"run"`
	// DurationMS is the offset of the last entry.
	DurationMS int64 `json:"duration_ms"`
	// Lanes are the actors in order of first appearance: the planner,
	// agents, you, system.
	Lanes    []string      `json:"lanes"`
	Timeline []ReplayEntry `json:"timeline"`
	// Truncated says the log held more than maxReplayEntries entries.
	Truncated bool `json:"truncated,omitempty"`
}

// ReplayEntry is one thing that happened in a run.
type ReplayEntry struct {
	// AtMS is the time since the run started, in milliseconds.
	AtMS int64 `json:"at_ms"`
	// Who acted: the planner (agents.PlannerName), "agent N", WhoYou or
	// WhoSystem.
	Who string `json:"who"`
	// Agent is the agent the entry concerns when that is not Who: the
	// agent spawned, killed, taken over or answered.
	Agent string `json:"agent,omitempty"`
	// Kind is what happened; bookkeeping kinds (model, observe, floor,
	// notice, tabs_closed) are marked Detail.
	Kind ReplayKind `json:"kind"`
	// Text is one readable line.
	Text    string `json:"text"`
	Step    int    `json:"step,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	// Effect is whether a tool step changed anything visible.
	Effect  *bool   `json:"effect,omitempty"`
	URL     string  `json:"url,omitempty"`
	Success *bool   `json:"success,omitempty"`
	Tokens  int     `json:"tokens,omitempty"`
	Cost    float64 `json:"cost,omitempty"`
	// Detail marks bookkeeping a viewer hides by default: model calls,
	// observations, floor claims and notices that repeat other entries.
	Detail bool `json:"detail,omitempty"`
}

// Records reads the log of the run id under dir/runs: an id that is
// not a run id is ErrBadRunID, a run with no log ErrNoSuchRun. A run still
// being written, or cut by a crash, may end in a partial line: what was
// read before it is returned without an error.
func Records(dir, id string) ([]agents.LogRecord, error) {
	if !runIDRE.MatchString(id) {
		return nil, fmt.Errorf("%q: %w", id, ErrBadRunID)
	}
	f, err := os.Open(filepath.Join(dir, "runs", id+".jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", id, ErrNoSuchRun)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	defer f.Close()
	recs, err := agents.ReadRunLog(f)
	if err != nil && len(recs) == 0 {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	return recs, nil
}

// Load reads the log of the run id under dir/runs into a timeline.
func Load(dir, id string) (Replay, error) {
	recs, err := Records(dir, id)
	if err != nil {
		return Replay{}, fmt.Errorf("replay %w", err)
	}
	rs, _ := summarizeRecords(id, recs)
	rs.ID = id
	if rs.Outcome == "" {
		rs.Outcome = OutcomeUnfinished
	}
	rp := Replay{Run: rs, Lanes: []string{}, Timeline: []ReplayEntry{}}
	rp.Timeline, rp.Truncated = replayTimeline(recs, maxReplayEntries)
	seen := map[string]bool{}
	for _, e := range rp.Timeline {
		for _, w := range []string{e.Who, e.Agent} {
			if w != "" && !seen[w] {
				seen[w] = true
				rp.Lanes = append(rp.Lanes, w)
			}
		}
		rp.DurationMS = max(rp.DurationMS, e.AtMS)
	}
	sort.SliceStable(rp.Lanes, func(i, j int) bool { return replayLaneRank(rp.Lanes[i]) < replayLaneRank(rp.Lanes[j]) })
	return rp, nil
}

// replayLaneRank orders lanes: the planner, agents by number, you, system.
func replayLaneRank(who string) int {
	switch {
	case who == agents.PlannerName:
		return 0
	case who == WhoYou:
		return 1 << 30
	case who == WhoSystem:
		return 1<<30 + 1
	case strings.HasPrefix(who, "agent "):
		if n, err := strconv.Atoi(strings.TrimPrefix(who, "agent ")); err == nil {
			return 1 + n
		}
	}
	return 1<<30 - 1
}
