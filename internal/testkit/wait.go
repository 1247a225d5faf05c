package testkit

import (
	"testing"
	"time"
)

// minPoll is the shortest gap between two looks at a condition.
const minPoll = 10 * time.Millisecond

// WaitFor looks at cond until it holds, failing tb with what it waited for
// once d has passed. It is for what a test can only observe by looking
// (another process's window, a file, a recorded request); a test that has
// an event or a channel waits on that instead.
//
// The gap between two looks is 10 ms or as long as the last look took,
// whichever is longer, so a costly condition (a screenshot, a process
// list) takes at most about half of a core however long the wait.
func WaitFor(tb testing.TB, d time.Duration, what string, cond func() bool) {
	tb.Helper()
	if !Within(d, cond) {
		tb.Fatalf("timed out after %v waiting for %s", d, what)
	}
}

// Within looks at cond as WaitFor does and reports whether it held before
// d passed, for a test that does something else when it did not.
func Within(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		start := time.Now()
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		<-time.After(max(minPoll, time.Since(start)))
	}
}
