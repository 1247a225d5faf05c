package runner

import (
	"errors"
	"syscall"
)

// Errors the run builder returns.
var (
	// ErrNoAPIKey is returned by BuildRun when no key is set and the base
	// URL is not a local server; each face adds where a key can be set.
	ErrNoAPIKey = errors.New("no API key")
	// ErrRunLogIncomplete wraps an error writing or closing a run's log:
	// the run itself went on, but its history and replay may lack records.
	ErrRunLogIncomplete = errors.New("the run log may be incomplete")
)

// RunLogHint says what the person can do about a run log that could not
// be written (err wraps agents.ErrRunLogWrite), in a few words each face
// puts after the error.
func RunLogHint(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return "free some disk space and run it again"
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EROFS):
		return "make the data folder writable (or point VROOM_DATA_DIR elsewhere) and run it again"
	}
	return "check the disk the data folder is on and run it again"
}
