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
package voice
