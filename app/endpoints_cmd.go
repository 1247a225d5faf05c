package app

import (
	"context"
	"fmt"
	"io"
	"strings"

	"vroom/browser"
)

// browserFlagUsage is --browser's line in vroom run -h.
const browserFlagUsage = "a remote browser to open the agents' tabs in (repeatable: each tab goes to the least-loaded one up): " +
	"ws://host:port/devtools/browser/ID, wss://host?token=KEY, or http://host:port (its /json/version names the WebSocket); " +
	"\"local\" for a Chromium on this computer. Default: the settings' browser.endpoints, else local"

// browserFlag parses one --browser: the first replaces the settings'
// list, the next ones add to it; "local" empties it. Addresses are checked
// after parsing (checkBrowsers), so the error names the flag.
func (o *runOptions) browserFlag() func(string) error {
	given := false
	return func(u string) error {
		if !given {
			o.Browsers, given = nil, true
		}
		if strings.EqualFold(strings.TrimSpace(u), "local") {
			o.Browsers = nil
			return nil
		}
		o.Browsers = append(o.Browsers, strings.TrimSpace(u))
		return nil
	}
}

// checkBrowsers checks each remote browser's address, naming the flag.
func checkBrowsers(urls []string) error {
	if err := (BrowserSettings{Endpoints: urls}).validate(); err != nil {
		msg := err.Error()
		if fe, ok := err.(*FieldError); ok {
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
func (o runOptions) runBrowsers(ctx context.Context, env runEnv, stderr io.Writer) (*browser.Browser, *Endpoints, func(), error) {
	switch {
	case env.Browser != nil:
		return env.Browser, nil, func() {}, nil
	case len(o.Browsers) > 0:
		pool, err := NewEndpoints(context.WithoutCancel(ctx), o.Browsers, EndpointOptions{})
		if err != nil {
			return nil, nil, nil, fmt.Errorf("--browser: %w", err)
		}
		done := func() {
			if err := pool.Close(); err != nil {
				fmt.Fprintln(stderr, "vroom run: disconnecting from the remote browsers:", err)
			}
		}
		if err := pool.Connect(ctx); err != nil {
			done()
			return nil, nil, nil, err
		}
		return nil, pool, done, nil
	}
	b := browser.Start(context.WithoutCancel(ctx), o.browserOptions(env.DataDir))
	return b, nil, func() { closeBrowser(b, stderr) }, nil
}

// startErr is what starting the local browser met; nil with remote ones,
// which were connected before the run.
func startErr(b *browser.Browser) error {
	if b == nil {
		return nil
	}
	return b.StartErr()
}
