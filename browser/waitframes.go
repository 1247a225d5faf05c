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
// tab's child frames, or the deadline; it looks for new frames whenever a
// frame loads or is added, and every frameRecheck. Each frame's document
// is waited in once. Unmet is the zero answer.
func (t *Tab) waitInFrames(ctx context.Context, query string, deadline time.Time) waitAnswer {
	tg := t.target()
	nav, stopNav := tg.Subscribe("Page.frameNavigated")
	defer stopNav()
	added, stopAdded := tg.Subscribe("Page.frameAttached")
	defer stopAdded()
	end := time.NewTimer(time.Until(deadline))
	defer end.Stop()
	recheck := time.NewTicker(frameRecheck)
	defer recheck.Stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the in-page waits still running
	found := make(chan waitAnswer, 1)
	waiting := map[*world]bool{}
	for {
		if left := time.Until(deadline); left > 0 {
			t.startFrameWaits(ctx, map[string]any{"query": query}, left, waiting, found)
		}
		select {
		case a := <-found:
			return a
		case _, ok := <-nav:
			if !ok {
				nav = nil // the target is gone; the top's wait says why
			}
		case _, ok := <-added:
			if !ok {
				added = nil
			}
		case <-recheck.C:
		case <-end.C:
			return waitAnswer{}
		case <-ctx.Done():
			return waitAnswer{}
		}
	}
}

// startFrameWaits starts waitFor(cond) in each child frame's world not in
// waiting yet, until ctx ends; a met answer goes to found, if it is free.
func (t *Tab) startFrameWaits(ctx context.Context, cond map[string]any, left time.Duration, waiting map[*world]bool, found chan<- waitAnswer) {
	t.op.Lock()
	var worlds []*world
	if fs, err := t.frames(ctx); err == nil {
		for _, f := range fs[1:] {
			if w, err := t.world(ctx, f); err == nil && !waiting[w] { // a frame still loading is looked at again
				worlds = append(worlds, w)
				waiting[w] = true
			}
		}
	}
	t.op.Unlock()
	for _, w := range worlds {
		go func() {
			if a, err := t.waitIn(ctx, w, cond, left); err == nil && a.Met {
				select {
				case found <- a:
				default: // another frame answered first
				}
			}
		}()
	}
}
