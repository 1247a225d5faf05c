package apptest

import (
	"bytes"
	"sync"
	"testing"

	"vroom/agents"
)

// SyncBuffer is a run log destination safe for concurrent writes and reads.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// Records are the run-log records written so far, failing the test on a
// line that does not parse.
func (s *SyncBuffer) Records(t testing.TB) []agents.LogRecord {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := agents.ReadRunLog(bytes.NewReader(s.b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// String is everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
