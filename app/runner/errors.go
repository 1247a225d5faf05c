package runner

import "errors"

// Errors the run builder returns.
var (
	// ErrNoAPIKey is returned by BuildRun when no key is set and the base
	// URL is not a local server; each face adds where a key can be set.
	ErrNoAPIKey = errors.New("no API key")
	// ErrRunLogIncomplete wraps an error writing or closing a run's log:
	// the run itself went on, but its history and replay may lack records.
	ErrRunLogIncomplete = errors.New("the run log may be incomplete")
)
