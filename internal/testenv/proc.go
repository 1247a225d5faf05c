package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ChromiumPID finds the main Chromium process running on the profile
// directory profile (its helpers carry --type=), so that a fault test can
// kill the browser of its own and no other: tests share the machine's
// Chromium binary, never a profile.
func ChromiumPID(profile string) (int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("find chromium: %w", err)
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		// Chromium rewrites its command line as one string (its process
		// title), so the flags are matched as text.
		cmd := string(b)
		if strings.Contains(cmd, "--user-data-dir="+profile) && !strings.Contains(cmd, "--type=") {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("find chromium: no process on %s", profile)
}
