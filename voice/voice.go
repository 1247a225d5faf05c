package voice

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"sync"
	"time"

	"github.com/gen2brain/malgo"
	openai "github.com/sashabaranov/go-openai"
)

// Config configures a Voice. Zero fields take the defaults noted.
type Config struct {
	// BaseURL is the OpenAI-compatible API root, ending in /v1. With
	// neither BaseURL nor APIKey there is no speech endpoint: speech out
	// uses espeak-ng and speech in reports ErrNoTranscriber.
	BaseURL string
	APIKey  string
	// HTTPClient makes the API calls; default http.DefaultClient.
	HTTPClient *http.Client

	// TTSModel is the speech model; default "gpt-4o-mini-tts".
	TTSModel string
	// Voices are handed to speakers round-robin in order of first speech;
	// default alloy, echo, fable, onyx, nova, shimmer.
	Voices []string
	// SpeakerVoices pins voices to speaker ids, overriding Voices.
	SpeakerVoices map[string]string
	// SpeechRate is the rate of the endpoint's raw PCM; default 24000.
	SpeechRate int
	// Offline forces espeak-ng even with an endpoint configured.
	Offline bool
	// Espeak is the espeak-ng binary; default "espeak-ng" on PATH.
	Espeak string
	// OfflineVoices are espeak-ng voices handed out like Voices.
	OfflineVoices []OfflineVoice

	// STTModel is the transcription model; default "whisper-1".
	STTModel string
	// Language is an ISO-639-1 hint for transcription; empty lets the
	// model detect it.
	Language string
	// TranscribeTimeout bounds one transcription; default 30 s.
	TranscribeTimeout time.Duration

	// Backend picks the audio system; default BackendAuto.
	Backend Backend
	// PlaybackDevice and CaptureDevice pick devices by id or name
	// substring; empty means the system default.
	PlaybackDevice, CaptureDevice string
	// PlaybackRate is the output rate; default 24000 (the endpoint's).
	PlaybackRate int
	// CaptureRate is the microphone rate; default 16000.
	CaptureRate int
	// Period is the audio period: how often the device callbacks run and
	// the level meter updates; default 10 ms.
	Period time.Duration
	// PlaybackBuffer is how much audio the sound server holds ahead of
	// the speaker; default Period. A larger one survives a busier machine
	// with fewer dropouts (on a two-core box at load 20, 50 ms had half to
	// a fifth of 10 ms's). It does not slow stopping, which halts the
	// device rather than draining it, but Done leads the audible end of
	// a message by up to this much.
	PlaybackBuffer time.Duration

	// OpenMic ends each utterance at the end of speech instead of at Mute.
	OpenMic bool
	// Hangover is how long speech must stay quiet to end an utterance;
	// default 500 ms.
	Hangover time.Duration
	// SpeechLevel is the RMS (full scale = 1) above which a frame counts
	// as speech; default 0.02.
	SpeechLevel float64
}

func (c *Config) defaults() {
	if c.TTSModel == "" {
		c.TTSModel = string(openai.TTSModelGPT4oMini)
	}
	if len(c.Voices) == 0 {
		c.Voices = defaultVoices()
	}
	if c.SpeechRate == 0 {
		c.SpeechRate = 24000
	}
	if c.Espeak == "" {
		c.Espeak = "espeak-ng"
	}
	if len(c.OfflineVoices) == 0 {
		c.OfflineVoices = defaultOfflineVoices()
	}
	if c.STTModel == "" {
		c.STTModel = openai.Whisper1
	}
	if c.TranscribeTimeout == 0 {
		c.TranscribeTimeout = 30 * time.Second
	}
	if c.PlaybackRate == 0 {
		c.PlaybackRate = 24000
	}
	if c.CaptureRate == 0 {
		c.CaptureRate = 16000
	}
	if c.Period == 0 {
		c.Period = 10 * time.Millisecond
	}
	if c.PlaybackBuffer == 0 {
		c.PlaybackBuffer = c.Period
	}
	if c.Hangover == 0 {
		c.Hangover = 500 * time.Millisecond
	}
	if c.SpeechLevel == 0 {
		c.SpeechLevel = 0.02
	}
}

// Voice speaks agents' messages and hears the person. Its methods are safe
// for concurrent use.
type Voice struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	client *openai.Client // nil: no endpoint
	espeak string         // resolved espeak-ng path, "" if none

	a      *audio
	player *player
	mic    *mic

	online, offline assigner
	transcripts     chan Transcript
	closeOnce       sync.Once
}

// New opens the audio system and returns a Voice that speaks until Close
// or until ctx ends; Close releases it either way. With no sound server or no playback device it returns an
// error wrapping ErrNoAudio, within probeTimeout: callers then run
// text-only.
func New(ctx context.Context, cfg Config) (*Voice, error) {
	cfg.defaults()
	a, err := probe(ctx, cfg)
	if err != nil {
		return nil, err
	}
	v := &Voice{
		cfg:         cfg,
		a:           a,
		transcripts: make(chan Transcript, 8),
	}
	v.ctx, v.cancel = context.WithCancel(ctx)
	if (cfg.BaseURL != "" || cfg.APIKey != "") && !cfg.Offline {
		oc := openai.DefaultConfig(cfg.APIKey)
		if cfg.BaseURL != "" {
			oc.BaseURL = cfg.BaseURL
		}
		if cfg.HTTPClient != nil {
			oc.HTTPClient = cfg.HTTPClient
		}
		v.client = openai.NewClientWithConfig(oc)
	}
	if p, err := exec.LookPath(cfg.Espeak); err == nil {
		v.espeak = p
	}
	v.online.n, v.offline.n = len(cfg.Voices), len(cfg.OfflineVoices)
	v.player = newPlayer(a, cfg.PlaybackDevice, cfg.PlaybackRate, cfg.PlaybackBuffer)
	frame := cfg.CaptureRate / 100 // 10 ms frames for the detector
	v.mic = &mic{
		a:       a,
		name:    cfg.CaptureDevice,
		rate:    cfg.CaptureRate,
		period:  cfg.Period,
		frame:   frame,
		ring:    newRing(cfg.CaptureRate * 2),
		wake:    make(chan struct{}, 1),
		scratch: make([]int16, 4096),
		vad: vad{
			threshold: cfg.SpeechLevel,
			minSpeech: cfg.CaptureRate / 10,
			hangover:  int(cfg.Hangover * time.Duration(cfg.CaptureRate) / time.Second),
		},
		emit: v.transcribe,
	}
	v.wg.Add(2)
	go func() {
		defer v.wg.Done()
		v.player.run(v.ctx)
	}()
	go func() {
		defer v.wg.Done()
		<-v.ctx.Done()
		v.mic.stop()
	}()
	return v, nil
}

// probeTimeout bounds opening the audio system.
const probeTimeout = 5 * time.Second

// probe opens the audio system and a playback device once, so a machine
// without sound is reported by New rather than by the first message. The
// probe runs aside so a sound server that accepts but never answers cannot
// hang the caller past ctx.
func probe(ctx context.Context, cfg Config) (*audio, error) {
	type result struct {
		a   *audio
		err error
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	ch := make(chan result, 1)
	go func() {
		a, err := openAudio(cfg.Backend)
		if err == nil {
			var d *device
			d, err = a.open(deviceSpec{kind: malgo.Playback, name: cfg.PlaybackDevice, rate: cfg.PlaybackRate, period: cfg.PlaybackBuffer, data: func(out, _ []byte, _ uint32) { clear(out) }})
			if err == nil {
				d.close()
			} else {
				a.close()
				a = nil
			}
		}
		ch <- result{a, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("new voice: %w", r.err)
		}
		return r.a, nil
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.a != nil {
				r.a.close()
			}
		}()
		return nil, fmt.Errorf("new voice: %w: %w", ErrNoAudio, ctx.Err())
	}
}

// Close stops all audio, closes the microphone and releases the devices.
// Transcriptions still in flight are abandoned.
func (v *Voice) Close() error {
	v.closeOnce.Do(func() {
		v.cancel()
		v.wg.Wait() // devices are closed before the context that owns them
		v.a.close()
	})
	return nil
}
