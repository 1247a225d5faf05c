package runlog

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"vroom/agents"
)

// The timeline: each log record rendered as one entry a person reads.

// replayTimeline turns log records into entries, at most limit of them, and
// reports whether some were cut.
func replayTimeline(recs []agents.LogRecord, limit int) ([]ReplayEntry, bool) {
	out := []ReplayEntry{}
	if len(recs) == 0 {
		return out, false
	}
	start := recs[0].Time
	for _, r := range recs {
		if r.Event == agents.LogRunStart {
			start = r.Time
			break
		}
	}
	// An agent's speech is logged twice: as a transcript entry when it
	// starts and as a speech record once the call returns.
	spoken := map[string]int{}
	cut := false
	for _, r := range recs {
		e, ok := replayEntryOf(r, spoken)
		if !ok {
			continue
		}
		if len(out) == limit {
			cut = true
			break
		}
		e.AtMS = max(0, r.Time.Sub(start).Milliseconds())
		out = append(out, e)
	}
	// A record is stamped before it takes the log's lock, so concurrent
	// agents' lines can be a little out of order in the file.
	sort.SliceStable(out, func(i, j int) bool { return out[i].AtMS < out[j].AtMS })
	return out, cut
}

// replayEntryOf renders one record; ok is false for a record that repeats one
// already shown.
func replayEntryOf(r agents.LogRecord, spoken map[string]int) (e ReplayEntry, ok bool) {
	e = ReplayEntry{Who: replayActor(r.Agent), Kind: ReplayKind(r.Event), Step: r.Step, URL: r.URL, Success: r.Success}
	if r.Usage != nil {
		e.Tokens, e.Cost = r.Usage.Total(), r.Usage.Cost
	}
	switch r.Event {
	case agents.LogTranscript:
		replayTranscript(r, &e, spoken)
	case agents.LogSpeech:
		// An agent's speech is shown once, as the transcript entry logged
		// when it started.
		k := r.Agent + "\x00" + r.Text
		if spoken[k] > 0 {
			spoken[k]--
			return e, false
		}
		e.Text = OneLine(r.Text, 500)
	default:
		if !replayRun(r, &e) && !replayPlanner(r, &e) && !replayStep(r, &e) && !replayPerson(r, &e) {
			// A record this version does not know still shows, as the log
			// line it is.
			e.Text = OneLine(agents.FormatRecord(r, r.Time), 300)
		}
	}
	if r.Error != "" && e.Kind != KindError && e.Kind != KindRefused && e.Kind != KindFloor {
		e.Text += " (error: " + OneLine(r.Error, 300) + ")"
	}
	return e, true
}

// replayTranscript renders a transcript entry by its kind, counting an
// agent's speech so the speech record logged after it is not shown again.
func replayTranscript(r agents.LogRecord, e *ReplayEntry, spoken map[string]int) {
	switch agents.EntryKind(r.Kind) {
	case agents.EntrySpeech:
		spoken[r.Agent+"\x00"+r.Text]++
		e.Kind, e.Text = KindSpeech, OneLine(r.Text, 500)
	case agents.EntryCorrection:
		e.Kind, e.Text = KindCorrection, OneLine(r.Text, 500)
	case agents.EntryAnswer:
		e.Kind, e.Text = KindAnswer, OneLine(r.Text, 500)
	default:
		e.Kind, e.Text, e.Detail = KindNotice, OneLine(r.Text, 300), true
	}
}

// replayRun renders the run's own records: its start and end, the kill
// switch, closed tabs and errors; false for any other record.
func replayRun(r agents.LogRecord, e *ReplayEntry) bool {
	switch r.Event {
	case agents.LogRunStart:
		e.Who, e.Text = WhoSystem, "task: "+OneLine(r.Text, 300)
	case agents.LogKilled:
		e.Who, e.Text = WhoSystem, "run stopped: "+OneLine(r.Text, 300)
	case agents.LogRunDone:
		e.Who = WhoSystem
		verdict := "run done"
		if r.Success == nil || !*r.Success {
			verdict = "run failed"
		}
		e.Text = verdict + ": " + OneLine(r.Text, 400)
	case agents.LogTabsClosed:
		e.Who, e.Detail = WhoSystem, true
		e.Text = "closed " + OneLine(r.Text, 60)
	case agents.LogError, agents.LogLogError:
		e.Kind, e.Text = KindError, OneLine(r.Error, 300)
	default:
		return false
	}
	return true
}

// replayPlanner renders the planner's process tools and executors' ends;
// false for any other record.
func replayPlanner(r agents.LogRecord, e *ReplayEntry) bool {
	switch r.Event {
	case agents.LogSpawn:
		e.Who, e.Agent = agents.PlannerName, r.Agent
		// A tab id means nothing to the person; where the agent went does.
		e.Text = "spawned " + r.Agent
		switch {
		case r.URL != "":
			e.Text += " at " + OneLine(r.URL, 120)
		case r.Tab != "":
			e.Text += " in a tab you gave it"
		}
		e.Text += ": " + OneLine(r.Text, 240)
	case agents.LogSpawnFailed:
		e.Kind, e.Text = KindError, "could not spawn "+quoteLine(r.Text, 160)+": "+OneLine(r.Error, 300)
	case agents.LogWait:
		e.Text = waitLine(r.Text)
	case agents.LogKill:
		e.Agent = fmt.Sprintf("agent %d", r.PID)
		e.Text = "killed " + e.Agent
	case agents.LogAgentDone:
		verdict := "finished"
		if r.Success == nil || !*r.Success {
			verdict = "failed"
		}
		e.Text = verdict + ": " + OneLine(r.Text, 400)
	default:
		return false
	}
	return true
}

// replayStep renders an agent's steps: tools, refusals, model calls and
// the runtime's tolerance for bad replies; false for any other record.
func replayStep(r agents.LogRecord, e *ReplayEntry) bool {
	switch r.Event {
	case agents.LogTool:
		e.Tool, e.Outcome, e.Effect = r.Tool, OneLine(r.Outcome, 300), r.Effect
		e.Text = replayToolLine(r.Tool, r.Args)
	case agents.LogPolicyDenied:
		e.Kind, e.Tool = KindRefused, r.Tool
		e.Text = "refused " + replayToolLine(r.Tool, r.Args) + ": " + OneLine(r.Error, 300)
	case agents.LogConfirmAsked:
		e.Tool = r.Tool
		e.Text = "asks you to confirm " + replayToolLine(r.Tool, r.Args)
		if r.Text != "" {
			e.Text += " on " + quoteLine(r.Text, 80)
		}
	case agents.LogSkipped:
		e.Text = OneLine(r.Text, 300)
	case agents.LogModel:
		e.Detail = true
		e.Text = fmt.Sprintf("model call (%s)", r.Kind)
		if r.Text != "" {
			e.Text += " → " + OneLine(r.Text, 120)
		}
	case agents.LogObserve:
		e.Detail = true
		e.Text = fmt.Sprintf("observed %s (%d bytes)", r.URL, r.Bytes)
	case agents.LogNudge:
		e.Text = "replied without a tool call: " + quoteLine(r.Text, 200)
	case agents.LogSalvaged:
		e.Text = "its reply was taken as done: " + quoteLine(r.Text, 200)
	case agents.LogMalformed:
		e.Kind, e.Tool = KindError, r.Tool
		e.Text = "malformed " + r.Tool + " call: " + OneLine(r.Error, 300)
	case agents.LogCallReissued:
		e.Kind, e.Text = KindReissued, OneLine(r.Text, 200)
	default:
		return false
	}
	return true
}

// replayPerson renders what passed between the agents and the person:
// questions, answers, speech, the floor and take-overs; false for any
// other record.
func replayPerson(r agents.LogRecord, e *ReplayEntry) bool {
	switch r.Event {
	case agents.LogConfirmAnswered:
		e.Who, e.Agent, e.Tool = WhoYou, replayActor(r.Agent), r.Tool
		e.Text = fmt.Sprintf("answered %s's confirmation: %s", e.Agent, OneLine(r.Text, 200))
	case agents.LogAskUser:
		e.Kind, e.Text = KindAsk, "asks you: "+OneLine(r.Text, 300)
	case agents.LogUserAnswer:
		e.Who, e.Agent, e.Kind = WhoYou, replayActor(r.Agent), KindAnswer
		e.Text = fmt.Sprintf("answered %s: %s", e.Agent, OneLine(r.Text, 300))
	case agents.LogInterrupted:
		e.Text = "was cut off: " + quoteLine(r.Text, 200)
	case agents.LogFloorClaimed:
		e.Kind, e.Text, e.Detail = KindFloor, "takes the floor", true
	case agents.LogFloorRejected:
		e.Kind, e.Text, e.Detail = KindFloor, "could not speak: "+OneLine(r.Error, 300), true
	case agents.LogSpeechFailed:
		e.Kind, e.Text = KindError, "speech failed: "+OneLine(r.Error, 300)
	case agents.LogTakeOver:
		e.Who, e.Agent = WhoYou, r.Agent
		e.Text = fmt.Sprintf("took over %s's tab", r.Agent)
	case agents.LogHandBack:
		e.Who, e.Agent = WhoYou, r.Agent
		e.Text = fmt.Sprintf("handed %s its tab back", r.Agent)
		if r.Text != "" {
			e.Text += ": " + OneLine(r.Text, 300)
		}
	default:
		return false
	}
	return true
}

// waitLine renders the planner's wait, logged as "all [1 2]" or "any []".
func waitLine(s string) string {
	mode, pids, _ := strings.Cut(s, " ")
	pids = strings.Trim(pids, "[]")
	switch {
	case pids == "" && mode == "all":
		return "waits for all its agents"
	case pids == "" && mode == "any":
		return "waits for any of its agents"
	case pids == "":
		return "waits: " + OneLine(s, 120)
	}
	return fmt.Sprintf("waits for %s of agents %s", mode, strings.Join(strings.Fields(OneLine(pids, 100)), ", "))
}

// replayActor names a record's actor for the person.
func replayActor(agent string) string {
	switch agent {
	case "":
		return WhoSystem
	case agents.User:
		return WhoYou
	}
	return agent
}

// replayToolLine renders a tool call compactly: "click e17", "type e5 "hello"".
// Its arguments are the log's, so anything masked there stays masked.
func replayToolLine(tool string, args json.RawMessage) string {
	var m map[string]any
	if len(args) == 0 || json.Unmarshal(args, &m) != nil {
		if len(args) > 0 {
			return tool + " " + OneLine(string(args), 160)
		}
		return tool
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	order := map[string]int{"ref": 0, "url": 1, "text": 2, "option": 3, "key": 4, "x": 5, "y": 6, "direction": 7}
	sort.Slice(keys, func(i, j int) bool {
		oi, iok := order[keys[i]]
		oj, jok := order[keys[j]]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	b.WriteString(tool)
	for _, k := range keys {
		b.WriteByte(' ')
		switch v := m[k].(type) {
		case string:
			if k == "ref" || k == "url" || k == "key" || k == "direction" {
				b.WriteString(OneLine(v, 120))
			} else {
				b.WriteString(quoteLine(v, 120))
			}
		case float64:
			b.WriteString(k + "=" + strconv.FormatFloat(v, 'f', -1, 64))
		case bool:
			if v {
				b.WriteString(k)
			} else {
				b.WriteString("no " + k)
			}
		default:
			j, _ := json.Marshal(v)
			b.WriteString(k + "=" + OneLine(string(j), 80))
		}
	}
	return b.String()
}

// OneLine makes s one line of at most n bytes.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func quoteLine(s string, n int) string { return `"` + OneLine(s, n) + `"` }
