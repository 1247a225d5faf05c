// Package agents owns runs: the model client, the planner (extractor) and its
// executors, the process table, the floor, budgets, the safety gate and the
// run log.
//
// It declares the small interfaces it consumes (a tab it can observe and act
// on, a voice it can speak with) rather than importing browser or voice, so it
// is tested without a window, a GPU or a sound card. It must not import app
// or Wails.
//
// A Run is one task. Its planner spawns executors like processes (spawn
// returns a PID, wait blocks like waitpid on any or all of them), each
// executor drives one leased Tab, and all of them share a Room: the
// transcript, the floor (one speaker at a time, claimed first come first
// served, the person holding a veto) and an event stream for the UI. Every
// tool result an agent receives carries the conversation since its last
// turn, the floor's state and the person's corrections, so no agent speaks
// without having heard everything said before.
//
// The model-facing tools are a public contract, documented in TOOLS.md.
//
// Wiring, as app/runner does it:
//
//	model := agents.NewModel(agents.ModelConfig{BaseURL: url, APIKey: key,
//		Models: map[agents.Role]string{agents.RolePlanner: "gpt-4.1", agents.RoleExecutor: "gpt-4.1-mini"}})
//	run := agents.NewRun(ctx, agents.Config{Model: model, Tabs: tabs, Voice: voice, Log: log})
//	sub := run.Room().Subscribe(ctx) // events for the UI
//	res, err := run.Execute(ctx, "add three unique skills to my profile")
//
// The person steers through the room: Room.UserStarts (unmute: the floor at
// once, agent audio stopped), Room.UserSays (the transcribed correction) and
// Room.UserStops; Run.Kill is the kill switch.
//
// A `Run` is one task. The planner (extractor) has `spawn`, `wait`, `kill`,
// `speak`, `ask_user`, `done`; each executor owns one leased tab and acts with
// `click`, `type`, `select`, `press`, `scroll`, `navigate`, `back`,
// `screenshot`, `click_at`, `type_focused`, `read_page`, `observe`, `wait`,
// `speak`, `ask_user`, `done` — defined in `tools.go` (`PlannerTools`,
// `ExecutorTools`) and documented, with the reasons behind each, in TOOLS.md.
//
// # Processes
//
// `spawn` returns the PID at once: opening or attaching the tab is the
// executor's first act, in its own goroutine (`Run.openTab`), so four spawns
// do not queue behind four page loads. A spawn into a tab first waits for the
// tab's last agent to let go (`awaitRelease`), so a retry in the same tab
// never meets a stale lease. A tab that cannot be had is logged
// (`spawn_failed`) and announced before the process ends `failed`, so a
// planner woken by `wait` finds the cause already written. `Reassign` (a tab
// dropped on a running agent) opens before it returns: the successor starts
// first and the predecessor ends killed with a summary naming the successor's
// PID, so a waiting planner follows the work.
//
// # Loops
//
// observe → model → tool → verify → observe. Page content is fenced as
// untrusted data. Old messages shrink by kind (only the last two full
// observations stay whole), so the prompt grows linearly; nothing seen is
// lost, because a result carries the page as it is now when the oldest diff
// since the latest full view would drop out, and a control beyond the view's
// 40 is one `observe` search away. A verdict says "no visible effect" only
// when neither the browser nor the diff saw a change; loop detection counts
// only those (a warning at three repeats, a stop at five). Page chrome over
// part of the viewport (a sticky header, a chat bubble) is scrolled clear of
// by the action itself (the walker's `prepare`, browser/js/prepare.js:
// centre, end, start); an action
// refused because a layer still covers its target (a popup, a dialog) returns
// that layer's controls (`CoveredError`), so the model can close it without
// another look.
//
// # The room and the floor
//
// One transcript, a cursor per agent, and the floor: claimed first come first
// served, held until the voice reports the real end of playback (or the
// reading time, text-only), with a TTL for a claim that never speaks; the
// person preempts at once. Every tool result carries the person's corrections
// first (as a priority instruction), then the conversation since the agent's
// last turn and the floor's state; a correction cancels in-flight model calls
// and reissues them. A muted agent's messages are never spoken
// (`speech_muted`) but still hold the floor for their reading time. The
// floor's rules are proven by 1,000 seeded interleavings in `floor_test.go`.
//
// # Model client
//
// go-openai against any base URL (normalised to `/v1`), a model and reasoning
// effort per role, each model spoken to through Chat Completions or the
// Responses API (`ResolveAPI`: `auto` picks Responses for the GPT-6 family,
// which go-openai refuses tools over Chat Completions). History stays in one
// form (chat messages) and is converted per call; nothing is stored
// server-side. Streamed tool calls are assembled by index (chat) or item id
// (responses); usage and cost per call and run; retries honour `Retry-After`;
// a deadline per call. Time is injected (`Clock`).
//
// # Faults no retry can mend
//
// end at once and are never fed back to the model: a tab whose calls wrap
// `ErrTabGone`/`ErrBrowserGone` fails its agent ("its tab is gone: …",
// reported once by wait); `LoseTabs` does it to every running agent; with
// `Config.FailOnBrowserGone` (headless, one local browser) the run ends. A
// refused key (`ErrKeyRefused`, never retried) and a server unreachable after
// bounded retries (`ErrModelUnreachable`) are a `ModelFault` and end the run;
// three replies without a usable tool call stop an agent (`ErrModelGarbage`).
//
// # Safety
//
// (the threat model and its tests: SECURITY.md). The gate classes every action
// read / write / irreversible from its target, including the form it submits
// (`Classify`); an irreversible one waits for the face's `Confirmer` (deny /
// allow once / allow for this run; headless, denied unless allowed by flag).
// Navigation is checked against allowed and blocked hosts and the run's sites
// — the origins of its tabs, the hosts the task names (`HostsNamed`),
// `--allow-host`, and hosts the person allowed; a host pattern
// (`ValidateHost`) matches subdomains, and a port when it names one. The
// exfiltration guard keeps the person's data (emails and signed-in names pages
// showed, text agents typed, masked values, the sites' cookies, the API key;
// raw, percent-decoded or base64) from leaving the sites without the person.
// The executor wraps its tab for its whole life (`executor.guard`): the
// wrapper collects what pages show and agents type, reads the tab's secrets
// before each action, and installs the browser's request guard (`GuardedTab`,
// found under decorations through `Unwrapper`) unless the person has taken the
// tab over. A navigation approved before `navigate` passes the request guard
// once, so the person is asked once. What the browser refused inside the page
// (a socket elsewhere, WebRTC: `Request.InPage`) reaches the same check and is
// reported as a refused request is, never asked of the person.
//
// # Budgets
//
// Steps per agent stop that agent; the run's wall time, tokens and cost stop
// the run with a `BudgetError` (wrapping `ErrKilled`), which the desktop shows
// apart from a failure.
//
// # Kinds are typed
//
// Run-log events are `LogEvent` constants (`LogRunStart`, `LogSpawn`,
// `LogTool`…, each documented with the fields it fills) — the file format,
// never renamed — used by the writers and every reader (`FormatRecord`,
// app/runlog). The room's events are `EventKind`, processes' states
// `ProcState`, a run's `RunState`, actions' `ActionKind`; the UI's types are
// generated from them.
//
// Files, by concern:
//
//   - `run.go`: `Run`, `Config`, `Budget`, `NewRun`, `Execute`, `Spawn`,
//     `Reassign`, `openTab`, `Kill`. `procs.go`: the process table (PIDs,
//     states, `wait` on PIDs / any / all with a timeout, concurrency limits).
//   - `planner.go`: the planner's prompt and tools; `describeTabs` names the
//     person's tabs by id, title and URL. `executor.go`: the executor's tools,
//     `admit` (the gate before an action), `act`, the verdict.
//     `executor_look.go`: the result's verdict line, the page now, `observe`
//     searches, `wait`. `executor_cover.go`: `CoveredError`. `agent.go`: the
//     loop both share (model call, pruning, fencing, `speak`, `ask_user`,
//     `done`). `tolerate.go`: malformed arguments explained once, truncated
//     `done` salvaged.
//   - `takeover.go`: `TakeOver`/`HandBack` — the executor pauses once its
//     current action ends; an action chosen while the person had the tab is
//     not performed; the hand-back note, marked as the user's, and a fresh
//     observation go into the next result.
//   - `tab.go`: the `Tab` and `TabProvider` interfaces, `TabInfo` (people know
//     a tab by `TabInfo.Name`, never its target id), `Action` and
//     `ActionKind`, `WaitFor`, `Target`, `Outcome`.
//   - `room.go`: `Room`, `Voice`, `Utterance`, `Entry`; corrections and
//     muting. `floor.go`: the floor (unexported: only the room claims it).
//     `events.go`: `EventKind`, `Event`, and `Subscription`, which coalesces
//     events that only matter in their latest state and never blocks the
//     publisher.
//   - `model.go`, `responses.go`: the model client over both APIs. `probe.go`:
//     `Probe`, one tool-call round trip for `vroom doctor`. `clock.go`:
//     `Clock`.
//   - `fault.go`: `ModelFault`, `Fail`, `LoseTabs`, the fault-watching tab
//     wrapper.
//   - `policy.go`: `Policy`, `Classify`, `Confirmation` and the person's
//     `Decision`. `gate.go`: the gate that applies a policy (lists, the run's
//     sites, confirmations, the request guard). `hosts.go`: host patterns, the
//     one matcher of sites and lists. `exfil.go`: the exfiltration detection
//     (the person's data, found in a request). `watchedtab.go`: the tab
//     decorator the guard watches through; `GuardedTab`, `Secret`, `Request`
//     are in `tab.go`, the executor's `guard` in `executor.go`. The browser
//     answers an action that made the page ask for a
//     navigation with what became of it (committed, or ended by the guard's
//     204), so the guard's check has run by the time the action returns and a
//     refusal is the action's own result, for agents and MCP tabs alike. A
//     link into a new tab (`Target.NewTab`, from the walker's `target`
//     attribute) is outside that guard — the request is the new tab's — so its
//     whole destination goes through the gate's `destination` check before the
//     click, as a `navigate` does. Requests a page's script sends (fetch, XHR,
//     beacons, added images) are held too and, off the sites, checked for the
//     person's secrets only (`gate.scriptRequest`: typed into a masked field,
//     a masked value, the API key); SECURITY.md says why not the rest.
//     `tabguard.go`: `TabGuard`, the same guard over a tab an MCP client
//     drives; `vroom mcp` sets `ConfirmLeaveOrigin`, so leaving the tab's
//     sites by any document request (link, form, redirect, script) is asked
//     once, before the request leaves.
//   - `runlog.go`: `RunLog` (JSON lines in `DataDir()/runs/RUN.jsonl`, the key
//     redacted and sensitive values masked at write time), `NewRunID`,
//     `Replay`. `logevent.go`: `LogEvent`.
//
// Exported are what the app tree uses: the interfaces it implements, the errors a
// run's calls return, the typed kinds and the tool lists; the floor, the
// room's per-agent update and the model's call/reply types stay unexported.
package agents
