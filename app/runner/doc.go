// Package runner builds runs: BuildRun is the one way every face (the
// desktop, vroom run, vroom mcp) gets a run, from a RunSpec that names the
// task, the settings, the browser or the remote pool, and the face's own
// confirmer, asker and event sink. It owns the adapters from browser and
// voice to the interfaces agents declares: Tabs (the TabProvider, leases
// for an executor's life, blank tabs prewarmed) and Tab (one leased tab:
// compact observations, diffs, searches, waits, verified input, the
// exfiltration guard), the mapping of a dead browser or tab to agents'
// faults, the speaker, and the run's safety policy.
//
// It may import config, remote, agents, browser and voice; never a face
// (app, cli, mcpserver) or doctor.
package runner
