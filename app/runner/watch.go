package runner

import (
	"context"
	"fmt"
	"strings"

	"vroom/agents"
	"vroom/app/remote"
	"vroom/browser"
)

// watchEndpoints is watchBrowser for a run over remote browsers, until
// ctx ends. A dead endpoint takes only its own tabs: the agents working
// in them end failed at their next call (agents.ErrBrowserGone through
// goneTabs; the run's FailOnBrowserGone is off), told once, and the
// planner decides — its next spawns go to the endpoints still up. When
// none is left to try and fail is set (headless), the whole run ends as
// it does when its one local browser dies.
func watchEndpoints(ctx context.Context, p *remote.Pool, run *agents.Run, fail bool) {
	p.Watch(ctx, func(l remote.Loss) {
		err := fmt.Errorf("%w (the remote browser %s: %v)", agents.ErrBrowserGone, l.Endpoint, l.Err)
		if fail && l.Usable == 0 {
			run.Fail(err)
			return
		}
		run.Room().Notice("the remote browser %s closed; its agents' tabs are gone, and new tabs open in the others", l.Endpoint)
	})
}

// watchBrowser tells run when b dies (crash, kill, a lost remote
// connection), until ctx ends: headless (fail) the whole run ends with
// agents.ErrBrowserGone; otherwise every agent still running ends failed,
// told once that its tab is gone, and the planner decides. An agent in
// the middle of a model call learns it here, not at its next action.
func watchBrowser(ctx context.Context, b *browser.Browser, run *agents.Run, fail bool) {
	events := b.Subscribe(ctx)
	go func() {
		for ev := range events {
			if ev.Kind != browser.BrowserClosed {
				continue
			}
			err := fmt.Errorf("%w (%s)", agents.ErrBrowserGone, strings.TrimPrefix(ev.Err, browser.ErrBrowserClosed.Error()+": "))
			if fail {
				run.Fail(err)
				return
			}
			run.LoseTabs(err)
		}
	}()
}
