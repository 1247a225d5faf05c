// Package cli is Vroom's terminal face: vroom run (a task headless), vroom
// replay, vroom doctor, vroom observe and vroom mcp's command line. Each
// command fills a runner.RunSpec, or hands the browsers it connected to
// the MCP server, and adds only its flags and its output.
//
// It may import runner, doctor, mcpserver, runlog, config, remote,
// agents, browser and voice; never app.
//
// # vroom run
//
// Flags over the settings; the browser started in the background
// (browser.Start) while the key is looked up, the log created and the
// planner's first request made; a line or JSON line per event (a model
// call's long wait included); exit 0/1/2; Ctrl-C stops the agents and
// closes their tabs; typed lines and push-to-talk are corrections. A
// flag error is its line and where help is, never the whole usage; a
// set-up fault is one line saying what to do (no key: OPENAI_API_KEY or
// Settings; a held profile: --profile ephemeral; a run log that cannot
// be written: its file, the cause and the fix), and a run whose log was
// cut never exits 0. With --browser (or the settings' remote
// browsers) the pool is connected before the run, so an unreachable farm
// fails at once; the run goes on while at least one answers.
//
// # The other commands
//
// vroom mcp parses its flags, chooses its browsers as vroom run does and
// serves mcpserver over stdio or streamable HTTP on a loopback address.
// vroom doctor runs doctor's checks with the flags over the settings and
// prints their table. vroom replay prints a past run's log as a timeline.
// vroom observe is a thin command line over browser's Observe and
// Screenshot, in a Chromium of its own or a remote one (--remote).
//
// # Files, by concern
//
//   - flags.go: the flag set every command shares, and the model flags.
//     browsers.go: --browser, the browsers a run or the MCP server opens
//     tabs in.
//   - run.go: vroom run. print.go: a line per event. listen.go: typed
//     lines and push-to-talk as corrections.
//   - mcp.go, doctor.go, replay.go, observe.go: the other commands.
package cli
