// Package modeltest is a scripted OpenAI-compatible server for tests. It
// speaks the wire format real providers use — streamed chat completions
// whose tool-call arguments arrive in pieces, OpenAI's Responses API with
// its server-sent events (responses.go), the models list, the speech
// and transcription endpoints — so a product's real client is what tests
// exercise. Replies are data: per role, a list of steps that match requests
// and give answers, with faults (rate limits, errors, slowness, malformed
// arguments, prose, truncation) on demand. Every request is recorded.
// planner.go holds the planner script most tests need (spawn each task,
// wait for all, finish), so a test scripts only the executors it is about.
//
// Its WAV writer is the provider's side of the wire, kept apart from
// voice.WAV on purpose: a fake that encoded with the code under test would
// agree with a bug in it.
//
// It imports nothing else from Vroom, so every package's tests may use it;
// no production code may.
package modeltest
