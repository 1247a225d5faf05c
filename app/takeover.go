package app

import (
	"context"
	"errors"
	"fmt"

	"vroom/agents"
	"vroom/browser"
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
	ctx, cancel := context.WithTimeout(a.context(), takeOverWait)
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
	// The viewport is back to the size the agent knows before it resumes,
	// acting as the agent (the person's input acts as it until now); the
	// note the agent reads says the page may have re-laid out.
	if owner := a.inputOwner(tab); owner != User {
		if err := a.fitTab(tab, owner, 0, 0); err != nil && !errors.Is(err, browser.ErrTabClosed) {
			a.log.Warn("hand back: the viewport was not restored", "pid", pid, "err", err)
		}
	}
	// The person's input stops before the agent resumes.
	r.mu.Lock()
	delete(r.heldBy, tab)
	r.mu.Unlock()
	return r.run.HandBack(pid, note)
}

// FitView resizes the viewport of a tab the person has taken over to
// width x height CSS pixels, the shape of the view they drive it in, so the
// whole page shows with no letterbox (a full-height web app's bottom bar
// included). Zero for both restores the default size; that is allowed on
// any tab the person may drive, and HandBack does it before the agent
// resumes.
func (a *App) FitView(tabID string, width, height int) error {
	owner := a.inputOwner(tabID)
	if (width != 0 || height != 0) && owner == User {
		return errors.New("fit view: only a tab the person has taken over is resized")
	}
	return a.fitTab(tabID, owner, width, height)
}

// fitTab resizes (or with zeros restores) the tab's viewport as owner.
func (a *App) fitTab(tabID, owner string, width, height int) error {
	t, err := a.userTab(tabID)
	if err != nil {
		return fmt.Errorf("fit view: %w", err)
	}
	ctx, cancel := context.WithTimeout(a.context(), inputWait)
	defer cancel()
	return t.FitViewport(browser.WithOwner(ctx, owner), width, height)
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
