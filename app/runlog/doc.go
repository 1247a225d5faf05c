// Package runlog reads the run logs agents writes under DATA/runs: the
// history (a row per run, newest first) and a run's replay (a timeline of
// entries, ms since the start, who, kind, one readable line). It reads
// the log alone, so a replay holds nothing the log redacted and drives no
// browser; an id must have agents.NewRunID's shape, so none names a file
// outside runs/.
//
// It may import agents; no app package.
package runlog
