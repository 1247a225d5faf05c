// Package remote is the pool of remote browsers (CDP endpoints: a browser
// farm, a hosted service) that runs open their agents' tabs in: each new
// tab goes to the least-loaded endpoint that is up; one that fails to
// connect or drops is marked down and retried after a backoff (2 s
// doubling to a minute) on an injected clock, and the pool's watchers are
// told. A dead endpoint takes only its own tabs: their agents fail, and
// headless a run ends when none is left. vroom doctor dials each endpoint
// through the pool's own dial (Options.ConnectFunc), so a check passes
// exactly when a run could connect.
//
// It may import browser; no app package.
package remote
