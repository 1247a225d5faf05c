package voice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gen2brain/malgo"
	openai "github.com/sashabaranov/go-openai"
)

// ErrNoTranscriber reports speech that could not be transcribed because no
// speech-to-text endpoint is configured.
var ErrNoTranscriber = errors.New("no speech-to-text endpoint configured")

// Transcript is what the person said in one utterance.
type Transcript struct {
	Text string
	Clip *Clip
	Err  error // the transcription failed; Text is empty
}

// mic owns the capture device while the person is unmuted.
type mic struct {
	a      *audio
	name   string
	rate   int
	period time.Duration
	frame  int // VAD frame, in samples

	ring     *ring
	wake     chan struct{}
	level    atomic.Uint64 // float64 bits of the last period's RMS
	overruns atomic.Uint64

	mu      sync.Mutex
	dev     *device
	openMic bool
	vad     vad
	samples []int16 // the utterance so far
	vadPos  int     // samples[:vadPos] went through the detector
	uttFrom int     // where the current utterance starts in samples
	scratch []int16
	quit    chan struct{}
	drained chan struct{}
	emit    func(*Clip) // a finished open-mic utterance
}

// data is the capture callback: copy into the ring, publish the level,
// signal. It never blocks or allocates.
func (m *mic) data(_, in []byte, _ uint32) {
	s := int16s(in)
	if m.ring.Write(s) < len(s) {
		m.overruns.Add(1)
	}
	m.level.Store(math.Float64bits(rms(s)))
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// start opens the capture device. Starting an open mic is a no-op.
func (m *mic) start(openMic bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dev != nil {
		return nil
	}
	m.ring.Discard()
	m.openMic = openMic
	m.vad.reset()
	m.samples, m.vadPos, m.uttFrom = nil, 0, 0
	m.level.Store(0)
	dev, err := m.a.open(deviceSpec{kind: malgo.Capture, name: m.name, rate: m.rate, period: m.period, data: m.data})
	if err != nil {
		return err
	}
	m.dev = dev
	m.quit, m.drained = make(chan struct{}), make(chan struct{})
	go m.run(m.quit, m.drained)
	return nil
}

// run drains the ring while the device runs.
func (m *mic) run(quit, drained chan struct{}) {
	defer close(drained)
	for {
		select {
		case <-quit:
			return
		case <-m.wake:
			m.mu.Lock()
			m.drain()
			m.mu.Unlock()
		}
	}
}

// drain moves captured samples out of the ring and through the detector.
// Called with m.mu held.
func (m *mic) drain() {
	for {
		n := m.ring.Read(m.scratch)
		if n == 0 {
			break
		}
		m.samples = append(m.samples, m.scratch[:n]...)
	}
	preroll := m.rate * 3 / 10
	for m.vadPos+m.frame <= len(m.samples) {
		ev := m.vad.push(m.samples[m.vadPos : m.vadPos+m.frame])
		m.vadPos += m.frame
		switch ev {
		case vadStart:
			if !m.openMic {
				break
			}
			// Keep a little audio from before the threshold was crossed:
			// the first consonant is often quieter than it.
			m.uttFrom = max(0, m.vadPos-m.vad.loud-preroll)
		case vadEnd:
			if m.openMic {
				c := &Clip{Samples: m.samples[m.uttFrom:m.vadPos], Rate: m.rate, Speech: true}
				m.samples = append([]int16(nil), m.samples[m.vadPos:]...)
				m.vadPos, m.uttFrom = 0, 0
				m.emit(c)
			}
		}
	}
	if m.openMic && !m.vad.inSpeech && m.vadPos > 2*preroll {
		// Between utterances keep only the preroll, so an open mic left on
		// for an hour does not hold an hour of silence.
		cut := m.vadPos - preroll
		m.samples = append(m.samples[:0], m.samples[cut:]...)
		m.vadPos -= cut
	}
}

// stop closes the capture device and returns what was recorded since the
// last utterance, or nil if the mic was not open.
func (m *mic) stop() *Clip {
	m.mu.Lock()
	dev, quit, drained := m.dev, m.quit, m.drained
	m.dev = nil
	m.mu.Unlock()
	if dev == nil {
		return nil
	}
	dev.close() // no callback runs after this
	close(quit)
	<-drained
	m.mu.Lock()
	defer m.mu.Unlock()
	m.drain()
	m.level.Store(0)
	c := &Clip{Samples: m.samples[m.uttFrom:], Rate: m.rate, Speech: m.vad.inSpeech || (!m.openMic && m.vad.heard)}
	m.samples, m.vadPos, m.uttFrom = nil, 0, 0
	return c
}

// Unmute opens the microphone. Every message stops first (barge-in), so no
// agent is heard by it; Say is refused until Mute. With Config.OpenMic
// each utterance ends at the end of speech plus the hangover and is
// transcribed on its own. Unmuting an open microphone is a no-op.
func (v *Voice) Unmute(ctx context.Context) error {
	if v.ctx.Err() != nil {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("unmute: %w", err)
	}
	v.player.stopAll(true)
	if err := v.mic.start(v.cfg.OpenMic); err != nil {
		v.player.setMicOpen(false)
		return fmt.Errorf("unmute: %w", err)
	}
	return nil
}

// Mute closes the microphone and returns what was recorded (since the last
// utterance, with an open mic). If it holds speech it is transcribed in
// the background and delivered on Transcripts. Muting a muted voice
// returns a nil clip.
func (v *Voice) Mute(_ context.Context) (*Clip, error) {
	c := v.mic.stop()
	v.player.setMicOpen(false)
	if c == nil {
		return nil, nil
	}
	if c.Speech {
		v.transcribe(c)
	}
	return c, nil
}

// PushToTalk maps a talk key: held opens the microphone (Unmute), released
// closes it (Mute) and returns the clip. Key repeat while held is harmless.
func (v *Voice) PushToTalk(ctx context.Context, held bool) (*Clip, error) {
	if held {
		return nil, v.Unmute(ctx)
	}
	return v.Mute(ctx)
}

// Listening reports whether the microphone is open.
func (v *Voice) Listening() bool {
	v.mic.mu.Lock()
	defer v.mic.mu.Unlock()
	return v.mic.dev != nil
}

// Level is the microphone's current level (RMS of the last audio period,
// full scale = 1), 0 when muted. It is the latest value, never a queue:
// poll it at the UI's frame rate.
func (v *Voice) Level() float64 { return math.Float64frombits(v.mic.level.Load()) }

// Transcripts delivers what the person said, one utterance at a time.
func (v *Voice) Transcripts() <-chan Transcript { return v.transcripts }

// transcribe sends a clip to the speech-to-text endpoint in the background.
func (v *Voice) transcribe(c *Clip) {
	v.wg.Add(1)
	go func() {
		defer v.wg.Done()
		ctx, cancel := context.WithTimeout(v.ctx, v.cfg.TranscribeTimeout)
		text, err := v.Transcribe(ctx, c)
		cancel()
		select {
		case v.transcripts <- Transcript{Text: text, Clip: c, Err: err}:
		case <-v.ctx.Done():
		}
	}()
}

// Transcribe turns a clip into text through the /audio/transcriptions
// endpoint.
func (v *Voice) Transcribe(ctx context.Context, c *Clip) (string, error) {
	if v.client == nil {
		return "", ErrNoTranscriber
	}
	resp, err := v.client.CreateTranscription(ctx, openai.AudioRequest{
		Model:    v.cfg.STTModel,
		FilePath: "speech.wav", // the extension sets the upload's content type
		Reader:   bytes.NewReader(c.WAV()),
		Language: v.cfg.Language,
	})
	if err != nil {
		return "", fmt.Errorf("transcribe %v clip: %w", c.Duration().Round(time.Millisecond), err)
	}
	return resp.Text, nil
}
