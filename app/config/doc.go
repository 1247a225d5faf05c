// Package config owns what the person configures and where Vroom keeps
// it: the settings file (strict, written atomically, a message naming
// each bad field), the API key in the OS keyring (OPENAI_API_KEY first,
// every keyring call under its own deadline, the key kept for the session
// only when the keyring fails, the keyring asked only where a D-Bus
// session bus is already there, so that none is launched and left behind:
// sessionbus.go), the local model servers offered when no
// key is set, the model client the settings describe, and the data
// directory.
//
// It may import agents (host patterns, model APIs), browser (endpoint
// addresses) and go-keyring; no other app package.
package config
