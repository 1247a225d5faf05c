package apptest

import (
	"bytes"
	"testing"

	"vroom/agents"
	"vroom/internal/testkit"
)

// RunLog is the run-log records written to b so far, failing the test on
// a line that does not parse.
func RunLog(tb testing.TB, b *testkit.LockedBuffer) []agents.LogRecord {
	tb.Helper()
	recs, err := agents.ReadRunLog(bytes.NewReader(b.Bytes()))
	if err != nil {
		tb.Fatal(err)
	}
	return recs
}
