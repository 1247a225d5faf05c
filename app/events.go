package app

import (
	"time"

	"vroom/agents"
	"vroom/browser"
)

// Event names an event the app sends the UI; its type argument is the
// payload the event carries, so emit cannot send a payload its name does
// not announce (and tstypes_test.go gives the UI each event's payload).
type Event[T any] string

// The events the app sends the UI. Each is namespaced by what it is
// about, so the UI subscribes to exactly what a component draws.
const (
	// EventTabs carries a TabsView whenever the browser's tabs change,
	// coalesced to at most one per TabsCoalesce.
	EventTabs Event[TabsView] = "tabs:changed"
	// EventBrowser carries a BrowserState when the browser becomes ready
	// or fails to start.
	EventBrowser Event[BrowserState] = "browser:state"
	// EventRoom carries an agents.Event of the running run's room.
	EventRoom Event[agents.Event] = "room:event"
	// EventRun carries a RunView when a run starts or ends.
	EventRun Event[RunView] = "run:state"
	// EventCard carries a Card: a confirmation or a question waiting for
	// the person.
	EventCard Event[Card] = "card:open"
	// EventCardClosed carries the id of a card that no longer waits
	// (answered, or its run ended).
	EventCardClosed Event[string] = "card:closed"
	// EventMuted carries a MutedView whenever an agent's voice is muted or
	// unmuted.
	EventMuted Event[MutedView] = "voice:muted"
	// EventMicLevel carries a MicLevel while the microphone is open, at
	// most one per MicLevelEvery, and a last one of level 0 when it closes.
	EventMicLevel Event[MicLevel] = "mic:level"
	// EventNotice carries one plain sentence about something the person
	// should know that stopped nothing, such as a run log that could not
	// be written whole.
	EventNotice Event[string] = "app:notice"
)

// MicLevelEvery is the least time between two EventMicLevel: the meter
// moves smoothly at 20 updates a second, and the UI is not woken each
// audio period.
const MicLevelEvery = 50 * time.Millisecond

// User is the owner name the person's own actions in a tab carry, so a tab
// an agent holds refuses them with the agent's name.
const User = "user"

// Emitter sends a named event to the UI. In the window it is Wails'
// EventsEmit; tests record what was sent. Emit must not block for long: it
// is called from the goroutines that follow the browser and the room.
type Emitter interface {
	Emit(name string, data any)
}

// EmitterFunc adapts a function to Emitter.
type EmitterFunc func(name string, data any)

// Emit calls f.
func (f EmitterFunc) Emit(name string, data any) { f(name, data) }

// emit sends the event e with its payload to the UI, if one is attached.
func emit[T any](a *App, e Event[T], data T) {
	a.mu.Lock()
	em := a.emitter
	a.mu.Unlock()
	if em != nil {
		em.Emit(string(e), data)
	}
}

// TabsView is the sidebar's model: every tab and which one is active.
type TabsView struct {
	Tabs   []browser.TabInfo `json:"tabs"`
	Active string            `json:"active"`
}

// BrowserState says whether the app's browser can be used.
type BrowserState struct {
	Ready bool   `json:"ready"`
	Error string `json:"error,omitempty"`
}

// LiveEndpoint is where the UI fetches a tab's frames:
// URL + "/live/" + tab + "?token=" + Token.
type LiveEndpoint struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

// SubmitKind says what the omnibox's text did.
type SubmitKind string

// What the omnibox's text did.
const (
	SubmitURL  SubmitKind = "url"  // the active tab navigated
	SubmitTask SubmitKind = "task" // a run started
)

// SubmitResult says what the omnibox's text did.
type SubmitResult struct {
	Kind  SubmitKind `json:"kind"`
	URL   string     `json:"url,omitempty"`
	RunID string     `json:"run_id,omitempty"`
}

// RunStatus is where a run is.
type RunStatus string

// Where a run is.
const (
	RunRunning RunStatus = "running"
	RunDone    RunStatus = "done"
	RunFailed  RunStatus = "failed"
)

// StopReason says why a failed run stopped when it was not the task's own
// failure.
type StopReason string

// Why a failed run stopped.
const (
	// StopBudget: one of the run's budgets ran out (the summary says which).
	StopBudget StopReason = "budget"
	// StopKilled: the person stopped it, or Vroom closed.
	StopKilled StopReason = "killed"
	// StopRunLog: its log could not be written (a full disk, a permission):
	// a run whose record is cut stops rather than claim success.
	StopRunLog StopReason = "run_log"
)

// RunView is a run's state for the UI.
type RunView struct {
	ID    string    `json:"id"`
	Task  string    `json:"task"`
	State RunStatus `json:"state"`
	// Stop says why a failed run stopped, when it was not the task's own
	// failure; empty otherwise.
	Stop    StopReason        `json:"stop,omitempty"`
	Summary string            `json:"summary,omitempty"`
	Started time.Time         `json:"started"`
	Ended   time.Time         `json:"ended,omitzero"`
	Tabs    []string          `json:"tabs,omitempty"` // attached by the person
	Procs   []agents.ProcInfo `json:"procs"`
	Usage   agents.Usage      `json:"usage"`
	// Transcript is the room so far, for a UI that (re)loads mid-run.
	Transcript []agents.Entry `json:"transcript"`
	// Muted are the agents whose voices the person muted (SetAgentMuted).
	Muted []string `json:"muted"`
}

// CardKind says whether a card is a confirmation or a question.
type CardKind string

// The kinds of card.
const (
	CardConfirm CardKind = "confirm"
	CardAsk     CardKind = "ask"
)

// ConfirmAnswer is the person's answer to a confirmation card.
type ConfirmAnswer string

// The answers a confirmation card offers.
const (
	AnswerDeny ConfirmAnswer = "deny" // refuse the action
	AnswerOnce ConfirmAnswer = "once" // allow this action
	AnswerRun  ConfirmAnswer = "run"  // allow it for the rest of the run
)

// Card is a confirmation or a question the person must answer.
type Card struct {
	ID    string   `json:"id"`
	Kind  CardKind `json:"kind"`
	RunID string   `json:"run_id"`
	Agent string   `json:"agent"`
	// For a confirmation: the exact action, its target, why it needs
	// approval and the page.
	Action string `json:"action,omitempty"`
	Target string `json:"target,omitempty"`
	Reason string `json:"reason,omitempty"`
	URL    string `json:"url,omitempty"`
	// For a question: the text and the answers to offer.
	Question string   `json:"question,omitempty"`
	Options  []string `json:"options,omitempty"`
}

// MutedView says whose voices are muted in a run.
type MutedView struct {
	RunID  string   `json:"run_id"`
	Agents []string `json:"agents"`
}

// MicLevel is the microphone's level, 0 to 1, as EventMicLevel carries it.
type MicLevel struct {
	Level float64 `json:"level"`
}
