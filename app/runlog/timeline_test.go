package runlog

import (
	"testing"
	"time"
)

// A runaway log is cut at the limit, and the replay says so.
func TestReplayTruncated(t *testing.T) {
	t.Parallel()
	recs := sampleReplayRun(time.Now())
	got, cut := replayTimeline(recs, 5)
	if len(got) != 5 || !cut {
		t.Fatalf("%d entries, cut %v; want 5, cut", len(got), cut)
	}
	got, cut = replayTimeline(recs, len(recs))
	if cut || len(got) != len(recs)-1 {
		t.Fatalf("%d entries, cut %v; want %d whole", len(got), cut, len(recs)-1)
	}
}

func TestReplayWaitLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"all []":    "waits for all its agents",
		"any []":    "waits for any of its agents",
		"any [1 3]": "waits for any of agents 1, 3",
		"all [2]":   "waits for all of agents 2",
	} {
		if got := waitLine(in); got != want {
			t.Errorf("waitLine(%q) = %q, want %q", in, got, want)
		}
	}
}
