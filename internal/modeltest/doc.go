// Package modeltest is a scripted OpenAI-compatible server for tests. It
// speaks the wire format real providers use — streamed chat completions
// whose tool-call arguments arrive in pieces, OpenAI's Responses API with
// its server-sent events (responses.go), the models list, the speech
// and transcription endpoints — so a product's real client is what tests
// exercise. Replies are data: per role, a list of steps that match requests
// and give answers, with faults (rate limits, errors, slowness, malformed
// arguments, prose, truncation) on demand. Every request is recorded.
//
// It imports nothing else from Vroom, so every package's tests may use it;
// no production code may.
package modeltest
