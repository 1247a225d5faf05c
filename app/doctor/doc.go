// Package doctor holds the checks of vroom doctor and of Settings' Check
// button: the settings, the key's source, the model server (a streamed
// tool call per role through its API, an image for the vision model,
// speech, transcription), Chromium or each remote browser (connected
// through the pool's own dial and asked its version), the sound server and
// the data directory. Each runs under its own deadline and a failure
// carries its fix; Print writes the table a terminal shows.
//
// It may import config, remote, agents, browser and voice; no face.
package doctor
