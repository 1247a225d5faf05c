// Package voice owns audio: playback and capture through malgo, text to
// speech and speech to text through an OpenAI-compatible API (or espeak-ng
// offline), push-to-talk and barge-in.
//
// It imports nothing else from Vroom. Audio callbacks never block or
// allocate: they copy through ring buffers.
package voice
