package app

import (
	"fmt"
	"os"
	"strings"
)

// Files dropped from the desktop onto the omnibox become the next run's
// files, as `vroom run --file` gives them: the only files its agents'
// uploads may send. Wails reports a drop's paths (DragAndDrop.EnableFileDrop
// in the window's options); the UI shows them as chips and passes them
// with the task (SubmitFiles).

// checkRunFiles refuses a file the run could not upload, naming it: one
// gone since it was dropped, or a folder.
func checkRunFiles(files []string) error {
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return fmt.Errorf("the dropped file %s: %w", f, err)
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("the dropped %s is not a file (drop files, not folders)", f)
		}
	}
	return nil
}

// withFiles is the task as the run gets it: the files named at its end,
// so the planner and its agents know what they may upload.
func withFiles(task string, files []string) string {
	if len(files) == 0 {
		return task
	}
	return task + "\n\nFiles I gave for this task: " + strings.Join(files, ", ")
}
