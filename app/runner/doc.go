// Package runner builds runs: BuildRun is the one way every face (the
// desktop, vroom run, vroom mcp's run_task) gets a run, from a RunSpec
// that names the task, the settings, the browser or the remote pool, and
// the face's own confirmer, asker, event sink and flags. There is no
// second way to build a run.
//
// It may import config, remote, agents, browser and voice; never a face
// (app, cli, mcpserver), doctor or runlog.
//
// # Building and closing
//
// BuildRun checks the key (ErrNoAPIKey), creates the run log (the key
// redacted), makes the Tabs (in the remote pool when RunSpec.Endpoints is
// set), opens the voice (no sound server: Warn, text-only), watches the
// browser or the pool for death, and returns a BuiltRun. Execute runs the
// task and turns the person's transcripts into corrections, or into a
// card's answer when Heard takes them. Close closes the tabs the run
// opened (CloseTabs, headless), waits at most a second for the run's end
// to be forwarded, lets the last message play (FinishSpeech), closes the
// voice and the log, and returns every error joined; a log not written
// whole wraps ErrRunLogIncomplete. A write to the log that fails (a full
// disk) has already failed the run by then (agents.ErrRunLogWrite), so no
// face reports success with a cut log. Building takes seconds (the keyring,
// the audio probe), so no caller holds a lock across it.
//
// Everything a run does is an agents.Event published by its Room;
// BuiltRun forwards them, in order, to RunSpec.Events: the desktop emits
// them to the UI, vroom run prints a line, vroom mcp sends progress.
//
// # The adapters
//
// Tabs is the agents.TabProvider over a browser (or a remote pool): every
// tab it hands out is leased to its executor for the executor's whole
// life, with the run's ways whatever the browser does for a person
// (runWays: alerts answered and reported, no sound), and blank tabs are
// prewarmed ahead of the planner's first spawns when asked. Tab is one leased tab as an executor (or an MCP client) sees
// it: compact observations and diffs, searches that leave the diff's
// baseline alone (Find), waits, verified trusted input, the targets the
// safety gate names, and the exfiltration guard over browser.Tab.Guard.
// The browser's hints are reworded to name the executor's tools. Browser
// errors become agents.ErrBrowserGone and ErrTabGone on every tab call
// (fault.go), so a dead tab ends its agent at once; a dead browser or
// endpoint is told to the run (watch.go). The speaker is agents.Voice
// over voice. runPolicy is Settings' navigation under the face's flags,
// with the task's hosts and the attached tabs as the first sites and the
// key as a secret.
//
// # Files, by concern
//
//   - build.go: RunSpec, BuildRun, BuiltRun. errors.go: its sentinels.
//     policy.go: the run's safety policy.
//   - tabs.go: Tabs. tab.go: Tab. find.go: Describe, Find, Wait, a covered
//     target's layer, the hints. guard.go: Tab as an agents.GuardedTab.
//     tabfiles.go: the run's download folder and cap, a popup taking the
//     executor's view and giving it back, Tab as an agents.DownloadsTab
//     (a file's text, a PDF's through pdftotext), the files a run may
//     upload (GivenFiles).
//   - fault.go: browser errors as agents' faults. watch.go: a dead browser
//     or remote endpoint told to the run. speaker.go: the voice adapter.
package runner
