package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// DataDir is where Vroom keeps runs and the persistent browser profile:
// $VROOM_DATA_DIR, else $XDG_DATA_HOME/vroom, else the platform's usual
// place for application data.
func DataDir() (string, error) {
	if d := os.Getenv("VROOM_DATA_DIR"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "vroom"), nil
	}
	switch runtime.GOOS {
	case "windows", "darwin":
		d, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("data dir: %w", err)
		}
		return filepath.Join(d, "vroom"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("data dir: %w", err)
	}
	return filepath.Join(home, ".local", "share", "vroom"), nil
}
