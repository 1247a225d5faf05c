package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"vroom/app/config"
	"vroom/app/remote"
	"vroom/browser"
)

// browserFlagUsage is --browser's line in vroom run -h.
const browserFlagUsage = "a remote browser to open the agents' tabs in (repeatable: each tab goes to the least-loaded one up): " +
	"ws://host:port/devtools/browser/ID, wss://host?token=KEY, or http://host:port (its /json/version names the WebSocket); " +
	"\"local\" for a Chromium on this computer. Default: the settings' browser.endpoints, else local"

// browserFlag parses one --browser of vroom run into o.Browsers.
func (o *runOptions) browserFlag() func(string) error { return browsersFlag(&o.Browsers) }

// browsersFlag parses one --browser (vroom run, vroom mcp) into list: the
// first replaces the settings' list, the next ones add to it; "local"
// empties it. Addresses are checked after parsing (checkBrowsers), so the
// error names the flag.
func browsersFlag(list *[]string) func(string) error {
	given := false
	return func(u string) error {
		if !given {
			*list, given = nil, true
		}
		if strings.EqualFold(strings.TrimSpace(u), "local") {
			*list = nil
			return nil
		}
		*list = append(*list, strings.TrimSpace(u))
		return nil
	}
}

// checkBrowsers checks each remote browser's address, naming the flag.
func checkBrowsers(urls []string) error {
	if err := (config.BrowserSettings{Endpoints: urls}).Validate(); err != nil {
		msg := err.Error()
		if fe, ok := err.(*config.FieldError); ok {
			msg = fe.Message
		}
		return fmt.Errorf("--browser: %s", msg)
	}
	return nil
}

// runBrowsers is where vroom run's tabs open, and done closes what it
// opened for the run:
//   - env.Browser, when set (tests), left open;
//   - the remote browsers of --browser (or the settings), connected
//     before the run so an unreachable farm fails at once; the run goes on
//     when at least one answers;
//   - otherwise a local Chromium. It outlives ctx's cancellation by the
//     grace period, so the run's tabs can be closed in order, and starts
//     in the background: the key lookup, the run log and the planner's
//     first model call go on meanwhile (no tab is needed before a spawn,
//     which waits for it); BenchmarkStartup.
func (o runOptions) runBrowsers(ctx context.Context, env runEnv, stderr io.Writer) (*browser.Browser, *remote.Pool, func(), error) {
	switch {
	case env.Browser != nil:
		return env.Browser, nil, func() {}, nil
	case len(o.Browsers) > 0:
		pool, done, err := connectEndpoints(ctx, o.Browsers, "vroom run", stderr)
		return nil, pool, done, err
	}
	b := browser.Start(context.WithoutCancel(ctx), o.browserOptions(env.DataDir))
	return b, nil, func() { closeBrowser(b, stderr) }, nil
}

// connectEndpoints is the pool over urls that a headless face's runs
// (vroom run's, vroom mcp's) open their tabs in, connected before any run
// so an unreachable farm fails at once; it goes on when at least one
// answers. The pool outlives ctx's cancellation, so a run's tabs can be
// closed in order; done disconnects, telling stderr (as face) what that
// met.
func connectEndpoints(ctx context.Context, urls []string, face string, stderr io.Writer) (*remote.Pool, func(), error) {
	pool, err := remote.New(context.WithoutCancel(ctx), urls, remote.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("--browser: %w", err)
	}
	done := func() {
		if err := pool.Close(); err != nil {
			fmt.Fprintf(stderr, "%s: disconnecting from the remote browsers: %v\n", face, err)
		}
	}
	if err := pool.Connect(ctx); err != nil {
		done()
		return nil, nil, err
	}
	return pool, done, nil
}

// startErr is what starting the local browser met; nil with remote ones,
// which were connected before the run.
func startErr(b *browser.Browser) error {
	if b == nil {
		return nil
	}
	return b.StartErr()
}
