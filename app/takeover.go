package app

import (
	"context"
	"time"

	"vroom/agents"
)

// TakeOver pauses agent pid so the person can drive its tab in the live
// view: once it returns, the agent has finished the action it was in and
// makes no call and no action until HandBack. The person's input to that
// tab is then accepted (it acts under the agent's lease, so no other agent
// can take the tab meanwhile).
func (a *App) TakeOver(pid int) (agents.ProcInfo, error) {
	r := a.currentRun()
	if r == nil || !r.isRunning() {
		return agents.ProcInfo{}, ErrNoRun
	}
	ctx, cancel := context.WithTimeout(a.context(), 30*time.Second)
	defer cancel()
	p, err := r.run.TakeOver(ctx, pid)
	if err != nil {
		return p, err
	}
	r.mu.Lock()
	if r.heldBy == nil {
		r.heldBy = map[string]string{}
	}
	r.heldBy[p.Tab] = p.Agent
	r.mu.Unlock()
	return p, nil
}

// HandBack resumes agent pid after TakeOver; note reaches its next tool
// result as the person's instruction, with a fresh view of the tab.
func (a *App) HandBack(pid int, note string) (agents.ProcInfo, error) {
	r := a.currentRun()
	if r == nil || !r.isRunning() {
		return agents.ProcInfo{}, ErrNoRun
	}
	var tab string
	for _, p := range r.run.Procs() {
		if p.PID == pid {
			tab = p.Tab
		}
	}
	// The person's input stops before the agent resumes.
	r.mu.Lock()
	delete(r.heldBy, tab)
	r.mu.Unlock()
	return r.run.HandBack(pid, note)
}

// inputOwner is whom the person's input to tab acts as: the agent whose
// tab the person has taken over, or the person.
func (a *App) inputOwner(tab string) string {
	if r := a.currentRun(); r != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		if o, ok := r.heldBy[tab]; ok {
			return o
		}
	}
	return User
}
