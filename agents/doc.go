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
// Wiring, in app:
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
package agents
