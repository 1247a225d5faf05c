package app

import (
	"fmt"

	"vroom/app/doctor"
)

// Doctor runs vroom doctor's checks with the session's settings, key and
// data directory (Options.DataDir when set), for the Check button in
// Settings. It takes as long as the checks do (each under its own
// deadline); the window keeps answering meanwhile.
func (a *App) Doctor() ([]doctor.CheckRow, error) {
	a.mu.Lock()
	st := a.settings
	a.mu.Unlock()
	dir, err := a.dataDir()
	if err != nil {
		return nil, fmt.Errorf("doctor: %w", err)
	}
	return doctor.Run(a.context(), doctor.Env{Settings: st, SettingsPath: a.store.Path, Key: a.secrets.APIKey, DataDir: dir}), nil
}
