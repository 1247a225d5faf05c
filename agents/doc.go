// Package agents owns runs: the model client, the planner (extractor) and its
// executors, the process table, the floor, budgets, the safety gate and the
// run log.
//
// It declares the small interfaces it consumes (a tab it can observe and act
// on, a voice it can speak with) rather than importing browser or voice, so it
// is tested without a window, a GPU or a sound card. It must not import app
// or Wails.
package agents
