package voice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// ErrNoSpeech reports that neither a speech endpoint nor an offline engine
// is available to turn text into audio.
var ErrNoSpeech = errors.New("no text-to-speech available")

// OfflineVoice is an espeak-ng voice and pitch.
type OfflineVoice struct {
	Name  string // espeak-ng -v, e.g. "en-gb+f3"
	Pitch int    // espeak-ng -p, 0..99
}

// String returns the voice as "name/pitch".
func (o OfflineVoice) String() string { return o.Name + "/" + strconv.Itoa(o.Pitch) }

// defaultVoices are the speech endpoint's voices handed to speakers in turn;
// every OpenAI speech model has them.
func defaultVoices() []string {
	return []string{"alloy", "echo", "fable", "onyx", "nova", "shimmer"}
}

// defaultOfflineVoices differ in accent, sex and pitch, so that even two
// agents with neighbouring voices are told apart.
func defaultOfflineVoices() []OfflineVoice {
	return []OfflineVoice{
		{"en-us", 50}, {"en-gb+f3", 70}, {"en-gb-scotland", 30},
		{"en-us+f2", 60}, {"en-029+m3", 40}, {"en-gb-x-rp+f4", 80},
	}
}

// assigner hands each new speaker the next voice index, round-robin, and
// remembers it: speakers keep their voice for the Voice's lifetime, and
// the first n speakers always get n distinct voices.
type assigner struct {
	mu   sync.Mutex
	n    int
	next int
	by   map[string]int
}

func (a *assigner) index(speaker string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if i, ok := a.by[speaker]; ok {
		return i
	}
	if a.by == nil {
		a.by = make(map[string]int)
	}
	i := a.next % a.n
	a.next++
	a.by[speaker] = i
	return i
}

// VoiceFor returns the voice speaker's messages are spoken in: a fixed
// assignment from Config.SpeakerVoices, else the next unused voice in
// turn (the endpoint's voice, or the espeak-ng voice when offline).
func (v *Voice) VoiceFor(speaker string) string {
	if v.client == nil {
		if v.espeak == "" {
			return ""
		}
		return v.cfg.OfflineVoices[v.offline.index(speaker)].String()
	}
	if name, ok := v.cfg.SpeakerVoices[speaker]; ok {
		return name
	}
	return v.cfg.Voices[v.online.index(speaker)]
}

// speech opens a stream of the spoken text.
func (v *Voice) speech(ctx context.Context, speaker, text string) (*pcmReader, string, error) {
	if v.client != nil {
		name := v.VoiceFor(speaker)
		resp, err := v.client.CreateSpeech(ctx, openai.CreateSpeechRequest{
			Model:          openai.SpeechModel(v.cfg.TTSModel),
			Input:          text,
			Voice:          openai.SpeechVoice(name),
			ResponseFormat: openai.SpeechResponseFormatPcm,
		})
		if err != nil {
			return nil, name, fmt.Errorf("request speech: %w", err)
		}
		r, err := newPCMReader(resp, v.cfg.SpeechRate, v.cfg.PlaybackRate)
		return r, name, err
	}
	if v.espeak == "" {
		return nil, "", ErrNoSpeech
	}
	ov := v.cfg.OfflineVoices[v.offline.index(speaker)]
	// Text goes in on stdin so nothing in it can be read as a flag.
	cmd := exec.CommandContext(ctx, v.espeak, "--stdout", "-v", ov.Name, "-p", strconv.Itoa(ov.Pitch))
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, ov.String(), fmt.Errorf("espeak-ng: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, ov.String(), fmt.Errorf("espeak-ng: %w", err)
	}
	r, err := newPCMReader(out, 22050, v.cfg.PlaybackRate)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, ov.String(), fmt.Errorf("espeak-ng: %w", err)
	}
	r.close = func() error {
		// Killed when the message was stopped early; that is not a failure.
		_ = cmd.Wait()
		return nil
	}
	return r, ov.String(), nil
}

// Say speaks text in speaker's voice. It returns once the first audio has
// arrived and is queued for the device (messages play one at a time, in
// order), or with the error that prevented any audio. Cancelling ctx stops
// the message.
func (v *Voice) Say(ctx context.Context, speaker, text string) (*Playback, error) {
	if v.ctx.Err() != nil {
		return nil, ErrClosed
	}
	sctx, cancel := context.WithCancel(ctx)
	stopClose := context.AfterFunc(v.ctx, cancel)
	src, name, err := v.speech(sctx, speaker, text)
	if err != nil {
		stopClose()
		cancel()
		return nil, fmt.Errorf("say %q as %s: %w", short(text), speaker, err)
	}
	first, err := src.Next()
	eof := errors.Is(err, io.EOF)
	if err != nil && !eof {
		src.Close()
		stopClose()
		cancel()
		return nil, fmt.Errorf("say %q as %s: stream speech: %w", short(text), speaker, err)
	}
	p := &Playback{
		speaker: speaker,
		voice:   name,
		pl:      v.player,
		done:    make(chan struct{}),
		cancel: func() {
			stopClose()
			cancel()
		},
		pending: first,
		srcDone: eof,
	}
	if err := v.player.enqueue(p); err != nil {
		src.Close()
		p.cancel()
		return nil, fmt.Errorf("say %q as %s: %w", short(text), speaker, err)
	}
	if eof {
		src.Close()
	} else {
		go v.player.feed(p, src)
	}
	context.AfterFunc(sctx, func() {
		if ctx.Err() != nil || v.ctx.Err() != nil {
			p.Stop()
		}
	})
	return p, nil
}

// StopAll silences every message at once and drops the queue: barge-in.
func (v *Voice) StopAll() { v.player.stopAll(false) }

// Underruns counts device periods that found no audio while a message was
// still streaming in: each one is an audible gap.
func (v *Voice) Underruns() uint64 { return v.player.underruns.Load() }

// short shortens text for error messages.
func short(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:37] + "..."
}
