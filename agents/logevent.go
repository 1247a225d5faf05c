package agents

// LogEvent names what a run-log record reports. The names are the log's
// file format: logs written by earlier versions are replayed by later ones,
// so a name never changes once written.
type LogEvent string

// The run: its start and end, and what stopped it.
const (
	// LogRunStart opens a run; Text is the task.
	LogRunStart LogEvent = "run_start"
	// LogRunDone closes a run; Text is the summary, with Success, Usage
	// and Error.
	LogRunDone LogEvent = "run_done"
	// LogKilled is the kill switch (or a budget) stopping the run; Text is
	// why.
	LogKilled LogEvent = "killed"
	// LogBudget is a run budget used up; Text names it.
	LogBudget LogEvent = "budget"
	// LogTabsClosed is the run's tabs closed at its end (vroom run); Text
	// counts them.
	LogTabsClosed LogEvent = "tabs_closed"
	// LogLogError stands in for a record that could not be encoded.
	LogLogError LogEvent = "log_error"
)

// The planner's process tools, and executors' ends.
const (
	// LogSpawn is an executor started: Agent, PID, Tab, the URL it opened
	// and its task as Text.
	LogSpawn LogEvent = "spawn"
	// LogSpawnFailed is a spawn refused, or an executor that could not
	// open or attach its tab (then with its Agent, PID and Tab); Text is
	// the task.
	LogSpawnFailed LogEvent = "spawn_failed"
	// LogReassign is a running executor's task moved to another tab;
	// Text is the summary its predecessor ends with.
	LogReassign LogEvent = "reassign"
	// LogWait is the planner's wait; Text is its mode and PIDs ("all [1 2]").
	LogWait LogEvent = "wait"
	// LogKill is the planner's kill of PID.
	LogKill LogEvent = "kill"
	// LogAgentDone is an executor's end: its summary, Success, Usage.
	LogAgentDone LogEvent = "agent_done"
)

// An agent's loop: model calls, tools, and the tolerance for bad replies.
const (
	// LogModel is one model call; Kind is the role, Text the tools called.
	LogModel LogEvent = "model"
	// LogCallReissued is a model call cancelled by a correction and sent
	// again.
	LogCallReissued LogEvent = "call_reissued"
	// LogModelWait: a model call is taking long (a slow server, a retry
	// waiting); Text says how, as the person was told.
	LogModelWait LogEvent = "model_wait"
	// LogError is a model call that failed for good.
	LogError LogEvent = "error"
	// LogNudge is a reply in prose, answered with a nudge to call a tool.
	LogNudge LogEvent = "nudge"
	// LogSalvaged is a done cut off by the token limit, kept as far as it
	// arrived.
	LogSalvaged LogEvent = "salvaged"
	// LogMalformed is a tool call with malformed arguments.
	LogMalformed LogEvent = "malformed"
	// LogObserve is an executor's first observation of its tab.
	LogObserve LogEvent = "observe"
	// LogTool is a page action, screenshot or read_page: Tool, Args,
	// Outcome, Effect, URL.
	LogTool LogEvent = "tool"
	// LogSkipped is an action not performed because the person took the
	// tab over first.
	LogSkipped LogEvent = "skipped"
)

// The safety gate and the person's answers.
const (
	// LogPolicyDenied is an action or navigation refused, by the policy or
	// by the person.
	LogPolicyDenied LogEvent = "policy_denied"
	// LogConfirmAsked is an irreversible action waiting for the person.
	LogConfirmAsked LogEvent = "confirm_asked"
	// LogConfirmAnswered is the person's decision; Text is "allowed" or
	// why not.
	LogConfirmAnswered LogEvent = "confirm_answered"
	// LogAskUser is an ask_user question.
	LogAskUser LogEvent = "ask_user"
	// LogUserAnswer is the person's answer to it.
	LogUserAnswer LogEvent = "user_answer"
	// LogTakeOver is the person taking an executor's tab.
	LogTakeOver LogEvent = "take_over"
	// LogHandBack is the tab handed back; Text is the person's note.
	LogHandBack LogEvent = "hand_back"
)

// The room: the transcript, speech and the floor.
const (
	// LogTranscript is a transcript entry; Kind is its EntryKind.
	LogTranscript LogEvent = "transcript"
	// LogSpeech is an agent's message, logged again once speak returns.
	LogSpeech LogEvent = "speech"
	// LogSpeechFailed is a message the voice could not say; it was shown
	// as text.
	LogSpeechFailed LogEvent = "speech_failed"
	// LogSpeechMuted is a muted agent's message, shown and not played.
	LogSpeechMuted LogEvent = "speech_muted"
	// LogInterrupted is a message the person cut off.
	LogInterrupted LogEvent = "interrupted"
	// LogFloorClaimed is a claim on the floor granted.
	LogFloorClaimed LogEvent = "floor_claimed"
	// LogFloorRejected is a claim refused because someone else spoke.
	LogFloorRejected LogEvent = "floor_rejected"
)
