package runlog

// Outcome is how a past run ended.
type Outcome string

// How a past run ended.
const (
	OutcomeDone   Outcome = "done"
	OutcomeFailed Outcome = "failed"
	OutcomeKilled Outcome = "killed" // the kill switch, or Vroom closing
	// OutcomeUnfinished: its log ends before the run did (a crash, a run
	// still going).
	OutcomeUnfinished Outcome = "unfinished"
)

// ReplayKind is what a replay entry shows happened. Most are the run
// log's own events (agents.LogEvent) under the same name; a few gather
// several (error, floor, refused) or split one (a transcript entry is
// speech, a correction, an answer or a notice).
type ReplayKind string

// What a replay entry shows happened.
const (
	KindRunStart        ReplayKind = "run_start"
	KindRunDone         ReplayKind = "run_done"
	KindKilled          ReplayKind = "killed"
	KindBudget          ReplayKind = "budget"
	KindTabsClosed      ReplayKind = "tabs_closed" // bookkeeping (Detail)
	KindError           ReplayKind = "error"
	KindSpawn           ReplayKind = "spawn"
	KindReassign        ReplayKind = "reassign"
	KindWait            ReplayKind = "wait"
	KindKill            ReplayKind = "kill"
	KindAgentDone       ReplayKind = "agent_done"
	KindModel           ReplayKind = "model" // bookkeeping (Detail)
	KindReissued        ReplayKind = "reissued"
	KindModelWait       ReplayKind = "model_wait"
	KindNudge           ReplayKind = "nudge"
	KindSalvaged        ReplayKind = "salvaged"
	KindObserve         ReplayKind = "observe" // bookkeeping (Detail)
	KindTool            ReplayKind = "tool"
	KindSkipped         ReplayKind = "skipped"
	KindRefused         ReplayKind = "refused"
	KindConfirmAsked    ReplayKind = "confirm_asked"
	KindConfirmAnswered ReplayKind = "confirm_answered"
	KindAsk             ReplayKind = "ask"
	KindAnswer          ReplayKind = "answer"
	KindTakeOver        ReplayKind = "take_over"
	KindHandBack        ReplayKind = "hand_back"
	KindSpeech          ReplayKind = "speech"
	KindSpeechMuted     ReplayKind = "speech_muted"
	KindCorrection      ReplayKind = "correction"
	KindInterrupted     ReplayKind = "interrupted"
	KindNotice          ReplayKind = "notice" // bookkeeping (Detail)
	KindFloor           ReplayKind = "floor"  // bookkeeping (Detail)
)
