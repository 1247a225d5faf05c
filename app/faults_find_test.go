package app

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"vroom/agents"
	"vroom/browser"
)

// closedTab is an agents.Tab whose searches and waits meet a closed tab,
// as the browser reports one.
type closedTab struct{ agents.Tab }

func (closedTab) Find(context.Context, agents.FindOptions) (agents.Observation, error) {
	return agents.Observation{}, fmt.Errorf("find: %w", browser.ErrTabClosed)
}

func (closedTab) Wait(context.Context, agents.WaitFor, time.Duration) (agents.WaitOutcome, error) {
	return agents.WaitOutcome{}, fmt.Errorf("wait: %w", browser.ErrBrowserClosed)
}

// The adapter's Find and Wait say a tab is gone as its other calls do, so
// the run ends the agent instead of showing the model the error.
func TestFaultFindAndWaitMapGone(t *testing.T) {
	t.Parallel()
	g := goneTab{closedTab{}}
	_, err := g.Find(context.Background(), agents.FindOptions{Query: "x"})
	if !errors.Is(err, agents.ErrTabGone) || !errors.Is(err, browser.ErrTabClosed) {
		t.Errorf("find: %v", err)
	}
	_, err = g.Wait(context.Background(), agents.WaitFor{Text: "x"}, time.Second)
	if !errors.Is(err, agents.ErrBrowserGone) || !errors.Is(err, browser.ErrBrowserClosed) {
		t.Errorf("wait: %v", err)
	}
}
