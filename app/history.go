package app

import (
	"fmt"

	"vroom/app/runlog"
)

// History lists past runs from their logs, newest first.
func (a *App) History() ([]runlog.Summary, error) {
	dir, err := a.dataDir()
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return runlog.List(dir)
}

// Replay reads the run id's log into a timeline.
func (a *App) Replay(id string) (runlog.Replay, error) {
	dir, err := a.dataDir()
	if err != nil {
		return runlog.Replay{}, fmt.Errorf("replay %s: %w", id, err)
	}
	return runlog.Load(dir, id)
}
