package runlog

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"vroom/agents"
)

const replaySecret = "sk-live-4242-very-secret"

// writeReplayLog writes recs as run id's log under dataDir, the way a run does:
// through agents.RunLog, with the API key registered for redaction.
func writeReplayLog(t *testing.T, dataDir, id string, recs []agents.LogRecord) {
	t.Helper()
	l, err := agents.CreateRunLog(filepath.Join(dataDir, "runs"), id, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Redact(replaySecret)
	for _, r := range recs {
		l.Write(r)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func replayPtr[T any](v T) *T { return &v }

// sampleReplayRun is a run with two agents, speech, a correction, a
// confirmation, a take-over and the end, at known times.
func sampleReplayRun(t0 time.Time) []agents.LogRecord {
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	return []agents.LogRecord{
		{Time: at(0), Event: agents.LogRunStart, Text: "get quotes from North and East"},
		{Time: at(400), Event: agents.LogModel, Agent: "planner", Step: 1, Kind: "planner", Text: "spawn,spawn", Usage: &agents.Usage{PromptTokens: 100, CompletionTokens: 20}},
		{Time: at(500), Event: agents.LogSpawn, Agent: "agent 1", PID: 1, Tab: "T1", URL: "http://x/north", Text: "get a quote from North"},
		{Time: at(520), Event: agents.LogTranscript, Agent: agents.System, Kind: string(agents.EntryNotice), Text: "agent 1 started on North Quotes (x): get a quote from North"},
		{Time: at(600), Event: agents.LogSpawn, Agent: "agent 2", PID: 2, Tab: "T2", Text: "get a quote from East"},
		{Time: at(700), Event: agents.LogWait, Agent: "planner", Text: "all []"},
		{Time: at(900), Event: agents.LogObserve, Agent: "agent 1", PID: 1, URL: "http://x/north", Bytes: 812},
		{Time: at(1200), Event: agents.LogTool, Agent: "agent 1", PID: 1, Step: 1, Tool: "click", Args: json.RawMessage(`{"ref":"e3"}`), Outcome: "the page changed: Your quote is 101.", Effect: replayPtr(true), URL: "http://x/north"},
		{Time: at(1300), Event: agents.LogTool, Agent: "agent 2", PID: 2, Step: 1, Tool: "type", Args: json.RawMessage(`{"ref":"e5","text":"••••"}`), Outcome: "typed", Effect: replayPtr(false)},
		// The key reached a page's text; the log must not keep it.
		{Time: at(1350), Event: agents.LogTool, Agent: "agent 2", PID: 2, Step: 2, Tool: "read_page", Args: json.RawMessage(`{}`), Outcome: "token " + replaySecret + " shown", Effect: replayPtr(false)},
		{Time: at(1400), Event: agents.LogFloorClaimed, Agent: "agent 1"},
		{Time: at(1400), Event: agents.LogTranscript, Agent: "agent 1", Kind: string(agents.EntrySpeech), Text: "North quotes 101."},
		{Time: at(1450), Event: agents.LogSpeech, Agent: "agent 1", PID: 1, Text: "North quotes 101."},
		{Time: at(1500), Event: agents.LogInterrupted, Agent: "agent 1", Text: "North quotes 101."},
		{Time: at(1600), Event: agents.LogTranscript, Agent: agents.User, Kind: string(agents.EntryCorrection), Text: "use the most recent quote"},
		{Time: at(1700), Event: agents.LogConfirmAsked, Agent: "agent 2", PID: 2, Step: 3, Tool: "click", Args: json.RawMessage(`{"ref":"e9"}`), URL: "http://x/east/checkout", Text: "Place order"},
		{Time: at(2500), Event: agents.LogConfirmAnswered, Agent: "agent 2", PID: 2, Step: 3, Tool: "click", Text: "denied by the user"},
		{Time: at(2600), Event: agents.LogPolicyDenied, Agent: "agent 2", PID: 2, Step: 3, Tool: "click", Args: json.RawMessage(`{"ref":"e9"}`), Error: "denied by the user"},
		{Time: at(2700), Event: agents.LogTakeOver, Agent: "agent 2", PID: 2, Tab: "T2"},
		{Time: at(3100), Event: agents.LogHandBack, Agent: "agent 2", PID: 2, Tab: "T2", Text: "I logged in"},
		{Time: at(3300), Event: agents.LogAgentDone, Agent: "agent 1", PID: 1, Text: "quote 101", Success: replayPtr(true), Usage: &agents.Usage{PromptTokens: 50}},
		{Time: at(3400), Event: agents.LogAgentDone, Agent: "agent 2", PID: 2, Text: "could not order", Success: replayPtr(false)},
		{Time: at(4000), Event: agents.LogRunDone, Text: "North quotes 101", Success: replayPtr(true), Usage: &agents.Usage{PromptTokens: 1000, CompletionTokens: 234, Cost: 0.0125}},
	}
}

// replayRow is what a timeline entry must show.
type replayRow struct {
	at         int64
	who        string
	kind       ReplayKind
	textHas    string
	detail     bool
	agentNamed string
}

// sampleReplayTimeline is sampleReplayRun's timeline, entry by entry.
func sampleReplayTimeline() []replayRow {
	return []replayRow{
		{0, WhoSystem, "run_start", "task: get quotes from North and East", false, ""},
		{400, "planner", "model", "spawn,spawn", true, ""},
		{500, "planner", "spawn", "spawned agent 1 at http://x/north: get a quote from North", false, "agent 1"},
		{520, WhoSystem, "notice", "agent 1 started", true, ""},
		{600, "planner", "spawn", "spawned agent 2 in a tab you gave it: get a quote from East", false, "agent 2"},
		{700, "planner", "wait", "waits for all its agents", false, ""},
		{900, "agent 1", "observe", "812 bytes", true, ""},
		{1200, "agent 1", "tool", "click e3", false, ""},
		{1300, "agent 2", "tool", `type e5 "••••"`, false, ""},
		{1350, "agent 2", "tool", "read_page", false, ""},
		{1400, "agent 1", "floor", "takes the floor", true, ""},
		{1400, "agent 1", "speech", "North quotes 101.", false, ""},
		// The speech record repeats the transcript entry: shown once.
		{1500, "agent 1", "interrupted", "cut off", false, ""},
		{1600, WhoYou, "correction", "use the most recent quote", false, ""},
		{1700, "agent 2", "confirm_asked", `confirm click e9 on "Place order"`, false, ""},
		{2500, WhoYou, "confirm_answered", "denied by the user", false, "agent 2"},
		{2600, "agent 2", "refused", "refused click e9: denied by the user", false, ""},
		{2700, WhoYou, "take_over", "took over agent 2's tab", false, "agent 2"},
		{3100, WhoYou, "hand_back", "handed agent 2 its tab back: I logged in", false, "agent 2"},
		{3300, "agent 1", "agent_done", "finished: quote 101", false, ""},
		{3400, "agent 2", "agent_done", "failed: could not order", false, ""},
		{4000, WhoSystem, "run_done", "run done: North quotes 101", false, ""},
	}
}

func TestReplayTimeline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const id = "20261130-155452-367f"
	t0 := time.Date(2026, 11, 30, 15, 54, 52, 0, time.UTC)
	writeReplayLog(t, dir, id, sampleReplayRun(t0))
	rp, err := Load(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	if rp.Run.ID != id || rp.Run.Task != "get quotes from North and East" || rp.Run.Outcome != "done" ||
		rp.Run.Agents != 2 || rp.Run.Tokens != 1234 || rp.Run.Cost != 0.0125 {
		t.Errorf("summary %+v", rp.Run)
	}
	if rp.DurationMS != 4000 {
		t.Errorf("duration %d ms, want 4000", rp.DurationMS)
	}
	if want := []string{"planner", "agent 1", "agent 2", WhoYou, WhoSystem}; strings.Join(rp.Lanes, "|") != strings.Join(want, "|") {
		t.Errorf("lanes %q, want %q", rp.Lanes, want)
	}

	want := sampleReplayTimeline()
	if len(rp.Timeline) != len(want) {
		for _, e := range rp.Timeline {
			t.Logf("%6d %-8s %-16s %s", e.AtMS, e.Who, e.Kind, e.Text)
		}
		t.Fatalf("%d entries, want %d", len(rp.Timeline), len(want))
	}
	for i, w := range want {
		e := rp.Timeline[i]
		if e.AtMS != w.at || e.Who != w.who || e.Kind != w.kind || !strings.Contains(e.Text, w.textHas) || e.Detail != w.detail || e.Agent != w.agentNamed {
			t.Errorf("entry %d = %+v\nwant at %d who %q kind %q text containing %q detail %v agent %q", i, e, w.at, w.who, w.kind, w.textHas, w.detail, w.agentNamed)
		}
	}
	click := rp.Timeline[7]
	if click.Tool != "click" || click.Outcome != "the page changed: Your quote is 101." || click.Effect == nil || !*click.Effect || click.Step != 1 {
		t.Errorf("tool entry %+v: want its tool, outcome, effect and step", click)
	}
	if typed := rp.Timeline[8]; typed.Effect == nil || *typed.Effect {
		t.Errorf("a step without visible effect lost it: %+v", typed)
	}
	if end := rp.Timeline[len(rp.Timeline)-1]; end.Success == nil || !*end.Success || end.Tokens != 1234 || end.Cost != 0.0125 {
		t.Errorf("run_done entry %+v", end)
	}

	// What the log redacted is not in the replay, in any field.
	b, _ := json.Marshal(rp)
	if strings.Contains(string(b), replaySecret) || strings.Contains(string(b), "4242-very") {
		t.Errorf("the replay holds the redacted secret:\n%s", b)
	}
	if !strings.Contains(rp.Timeline[9].Outcome, "[redacted]") {
		t.Errorf("redacted outcome = %q", rp.Timeline[9].Outcome)
	}
}

// A run cut short (the app crashed mid-write) replays up to where its log
// ends, as unfinished.
func TestReplayUnfinished(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const id = "20261130-160000-00a1"
	t0 := time.Date(2026, 11, 30, 16, 0, 0, 0, time.UTC)
	writeReplayLog(t, dir, id, sampleReplayRun(t0)[:8])
	f, err := os.OpenFile(filepath.Join(dir, "runs", id+".jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"t":"2026-11-30T16:00:05Z","event":"tool","agent":"agent 1","outc`)
	f.Close()

	rp, err := Load(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	if rp.Run.Outcome != "unfinished" || len(rp.Timeline) != 8 || rp.Timeline[7].Kind != "tool" || rp.DurationMS != 1200 {
		t.Errorf("outcome %q, %d entries, %d ms", rp.Run.Outcome, len(rp.Timeline), rp.DurationMS)
	}
}

func TestReplayBadID(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A file outside runs/ that a path in the id would reach.
	if err := os.WriteFile(filepath.Join(dir, "secret.jsonl"), []byte(`{"event":"run_start","text":"x"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeReplayLog(t, dir, "20261130-155452-367f", sampleReplayRun(time.Now()))
	for _, id := range []string{
		"", "..", "../secret", "../../etc/passwd", "/etc/passwd",
		"20261130-155452-367f/../../secret", "20261130-155452-367f.jsonl", "20261130-155452-367F",
		"20261130-155452-367f ", " 20261130-155452-367f", "20261130-155452-367", "20261130-155452-367f0",
		"2026113a-155452-367f", "20261130_155452_367f", "20261130-155452-367f\n", `20261130-155452-367f\x`,
	} {
		_, err := Load(dir, id)
		if !errors.Is(err, ErrBadRunID) {
			t.Errorf("Replay(%q) = %v, want ErrBadRunID", id, err)
		}
		if err != nil && !strings.Contains(err.Error(), "not a run id") {
			t.Errorf("Replay(%q) error %q does not say why", id, err)
		}
	}
}

func TestReplayMissingRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// No runs directory at all, then a directory without this run.
	for range 2 {
		_, err := Load(dir, "20261130-155452-beef")
		if !errors.Is(err, ErrNoSuchRun) || errors.Is(err, ErrBadRunID) {
			t.Errorf("Replay of a missing run = %v, want ErrNoSuchRun", err)
		}
		writeReplayLog(t, dir, "20261130-155452-367f", sampleReplayRun(time.Now()))
	}
}

// BenchmarkReplay builds the replay of a long run: 4 agents, 1,000 steps
// each, about 6,000 log records (the UI's wait after clicking Replay).
func BenchmarkReplay(b *testing.B) {
	dir := b.TempDir()
	const id = "20261130-170000-b0b0"
	l, err := agents.CreateRunLog(filepath.Join(dir, "runs"), id, nil)
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)
	n := 0
	at := func() time.Time { n++; return t0.Add(time.Duration(n) * 50 * time.Millisecond) }
	l.Write(agents.LogRecord{Time: at(), Event: agents.LogRunStart, Text: "a long task"})
	for i := range 1000 {
		for a := 1; a <= 4; a++ {
			name := "agent " + strconv.Itoa(a)
			l.Write(agents.LogRecord{Time: at(), Event: agents.LogModel, Agent: name, Step: i + 1, Kind: "executor", Text: "click", Usage: &agents.Usage{PromptTokens: 3000, CompletionTokens: 40}})
			if i%2 == 0 {
				l.Write(agents.LogRecord{Time: at(), Event: agents.LogTool, Agent: name, PID: a, Step: i + 1, Tool: "click",
					Args: json.RawMessage(`{"ref":"e17"}`), Outcome: "the page changed: a dialog opened with 12 new controls", Effect: replayPtr(true), URL: "https://example.com/page"})
			}
		}
	}
	l.Write(agents.LogRecord{Time: at(), Event: agents.LogRunDone, Text: "done", Success: replayPtr(true)})
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	var entries int
	b.ResetTimer()
	for b.Loop() {
		rp, err := Load(dir, id)
		if err != nil {
			b.Fatal(err)
		}
		entries = len(rp.Timeline)
	}
	b.ReportMetric(float64(entries), "entries")
	b.ReportMetric(float64(n), "records")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/replay")
}
