package browser

import (
	"context"
	"time"
)

// frameRecheck is how often a wait for a control also lists the tab's
// frames again: an out-of-process iframe's load is reported on its own
// session, not the tab's, so no event of the tab says it arrived.
const frameRecheck = time.Second

// waitAll is waitLoop, with a query also looked for in the tab's child
// frames: a control inside an iframe (a consent manager's dialog, an
// embedded form) is part of the page the agent observes, and the top
// document's wait cannot see it. The first condition to hold ends it.
func (t *Tab) waitAll(ctx context.Context, w WaitFor, deadline time.Time) (waitAnswer, error) {
	if w.Query == "" {
		return t.waitLoop(ctx, w, deadline)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		ans waitAnswer
		err error
	}
	top, inFrames := make(chan result, 1), make(chan waitAnswer, 1)
	go func() {
		a, err := t.waitLoop(ctx, w, deadline)
		top <- result{a, err}
	}()
	go func() { inFrames <- t.waitInFrames(ctx, w.Query, deadline) }()
	select {
	case r := <-top:
		if r.ans.Met || r.err != nil {
			return r.ans, r.err
		}
		// The top document's wait ended unmet; the frames' has the same
		// deadline.
		if a := <-inFrames; a.Met {
			return a, nil
		}
		return r.ans, nil
	case a := <-inFrames:
		if a.Met {
			return a, nil
		}
		r := <-top
		return r.ans, r.err
	}
}

// waitInFrames waits until a control matching query exists in one of the
// tab's child frames, or the deadline; it looks again whenever a frame
// loads or is added, and every frameRecheck. Unmet is the zero answer.
func (t *Tab) waitInFrames(ctx context.Context, query string, deadline time.Time) waitAnswer {
	tg := t.target()
	nav, stopNav := tg.Subscribe("Page.frameNavigated")
	defer stopNav()
	added, stopAdded := tg.Subscribe("Page.frameAttached")
	defer stopAdded()
	end := time.NewTimer(time.Until(deadline))
	defer end.Stop()
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return waitAnswer{}
		}
		round, cancel := context.WithCancel(ctx)
		found := t.startFrameWaits(round, map[string]any{"query": query}, left)
		recheck := time.NewTimer(frameRecheck)
		select {
		case a := <-found:
			recheck.Stop()
			cancel()
			return a
		case <-nav:
		case <-added:
		case <-recheck.C:
		case <-end.C:
			cancel()
			return waitAnswer{}
		case <-ctx.Done():
			recheck.Stop()
			cancel()
			return waitAnswer{}
		}
		recheck.Stop()
		cancel()
	}
}

// startFrameWaits starts waitFor(cond) in every child frame's world until
// ctx ends; the returned channel gets the answers that were met.
func (t *Tab) startFrameWaits(ctx context.Context, cond map[string]any, left time.Duration) <-chan waitAnswer {
	t.op.Lock()
	var worlds []*world
	if fs, err := t.frames(ctx); err == nil {
		for _, f := range fs[1:] {
			if w, err := t.world(ctx, f); err == nil { // a frame still loading is looked at again
				worlds = append(worlds, w)
			}
		}
	}
	t.op.Unlock()
	found := make(chan waitAnswer, len(worlds))
	for _, w := range worlds {
		go func() {
			if a, err := t.waitIn(ctx, w, cond, left); err == nil && a.Met {
				found <- a
			}
		}()
	}
	return found
}
