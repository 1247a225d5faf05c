package app

import (
	"errors"
	"fmt"
	"slices"

	"vroom/agents"
)

// EventMuted carries a MutedView whenever an agent's voice is muted or
// unmuted.
const EventMuted = "voice:muted"

// ErrNoAgent is returned for an agent name the active run does not have.
var ErrNoAgent = errors.New("no such agent in this run")

// plannerAgent is the planner's name in the room.
const plannerAgent = "planner"

// MutedView says whose voices are muted in a run.
type MutedView struct {
	RunID  string   `json:"run_id"`
	Agents []string `json:"agents"`
}

// SetAgentMuted mutes or unmutes agent's voice for the rest of the active
// run. A muted agent's messages still appear in the transcript and hold
// the floor for their reading time; they are only not spoken, and no
// speech is generated for them.
func (a *App) SetAgentMuted(agent string, muted bool) error {
	r := a.currentRun()
	if r == nil || !r.isRunning() {
		return ErrNoRun
	}
	known := agent == plannerAgent || slices.ContainsFunc(r.run.Procs(), func(p agents.ProcInfo) bool { return p.Agent == agent })
	if !known {
		return fmt.Errorf("mute %q: %w", agent, ErrNoAgent)
	}
	room := r.run.Room()
	room.SetMuted(agent, muted)
	a.emit(EventMuted, MutedView{RunID: r.id, Agents: room.Muted()})
	return nil
}
