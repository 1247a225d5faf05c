package app

import (
	"context"
	"fmt"

	"vroom/browser"
)

// An agent's tab is muted while it works (the room is one voice at a
// time, and a page's video would talk over the agents); its tile's page
// sound toggle lets the person hear it, as long as it is shown.

// SetAgentTabSound lets the tab of the running run's process pid play
// sound (on) or mutes it again.
func (a *App) SetAgentTabSound(pid int, on bool) error {
	r, err := a.runningRun()
	if err != nil {
		return err
	}
	for _, p := range r.run.Procs() {
		if p.PID != pid {
			continue
		}
		if p.Tab == "" {
			return fmt.Errorf("page sound: %s has no tab yet", p.Agent)
		}
		t, err := a.findTab(p.Tab)
		if err != nil {
			return fmt.Errorf("page sound: %w", err)
		}
		ctx, cancel := context.WithTimeout(browser.WithOwner(a.context(), p.Agent), inputWait)
		defer cancel()
		if err := t.SetMuted(ctx, !on); err != nil {
			return fmt.Errorf("page sound: %w", err)
		}
		return nil
	}
	return fmt.Errorf("page sound: no agent #%d: %w", pid, ErrNoAgent)
}
