package app

import (
	"context"
	"fmt"

	"vroom/agents"
	"vroom/app/remote"
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
