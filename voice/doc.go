// Package voice owns audio: playback and capture through malgo, text to
// speech and speech to text through an OpenAI-compatible API (or espeak-ng
// offline), push-to-talk and barge-in.
//
// It imports nothing else from Vroom. Audio callbacks never block or
// allocate: they copy through ring buffers.
//
// A Voice speaks one message at a time: Say streams the speech endpoint's
// raw PCM to the default output as it arrives, in a voice of its own for
// each speaker, and the returned Playback reports when it ended and how
// much really played. Stopping halts the device rather than draining it,
// so silence is immediate. Unmute stops every message before it opens the
// microphone (barge-in); Mute, the end of push-to-talk, or the end of
// speech in open-mic mode sends the recording to the transcription
// endpoint, and the text arrives on Transcripts.
//
// Without a sound server or device New returns an error wrapping
// ErrNoAudio; the caller carries on text-only.
//
// One malgo playback device (24 kHz mono, 10 ms period) fed from a
// non-allocating ring buffer; messages play one at a time; stopping halts the
// device rather than draining it, so silence is immediate. TTS streams PCM
// from `/audio/speech` and starts on the first chunk; with no endpoint,
// espeak-ng with a variant per speaker. `Unmute` stops all playback first,
// then opens capture at 16 kHz; `Mute` (or the end of speech in open-mic mode,
// 500 ms hangover) sends a WAV to `/audio/transcriptions`, and the text
// arrives on `Transcripts()`. No sound server → `ErrNoAudio` once, and callers
// run text-only.
//
// A sound server that dies mid-message (PulseAudio's stream then fails
// silently: no stop callback) is caught by the player's heartbeat: a device
// with no data callback for `stallAfter` (1 s) is lost, the message ends
// interrupted and frees the floor, and later messages are shown text-only
// (`speech_failed`). A new stream gets `firstBeatAfter` (3 s) for its first
// callback, because a healthy server with an idle sink starts streams in
// blocks of up to 2 s. Measured with `vroom run --voice`: the message cut and
// the floor free 1.1–1.3 s after a SIGKILL of PulseAudio, the process out
// 1.3–3 s after it.
//
// Files, by concern: `voice.go` (`Config`, `Voice`, `New` with its audio
// probe, `Close`), `device.go` (malgo backends and devices), `player.go`
// (`Playback`, the player and its heartbeat), `speech.go` (TTS,
// `OfflineVoice`, a voice per speaker), `mic.go` (capture, `Unmute`, `Mute`,
// `PushToTalk`, `Level`, transcription), `vad.go` (open-mic speech detection),
// `pcm.go` (`Clip`, WAV, resampling), `ring.go` (the ring buffer).
package voice
