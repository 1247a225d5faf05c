package voice

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/gen2brain/malgo"
)

// ErrNoAudio reports that there is no sound server or no usable playback or
// capture device. Callers treat it as "run text-only": nothing else in the
// package panics or hangs for lack of audio.
var ErrNoAudio = errors.New("no audio device")

// Backend selects the audio system malgo talks to.
type Backend int

const (
	// BackendAuto tries PulseAudio (and PipeWire through it), then ALSA
	// when the machine has a sound card. It never falls back to a silent
	// device, so a machine without sound reports ErrNoAudio instead of
	// playing into nothing.
	BackendAuto Backend = iota
	// BackendPulse uses PulseAudio only.
	BackendPulse
	// BackendALSA uses ALSA only.
	BackendALSA
	// BackendNull plays and records silence at real-time pace with no
	// hardware; useful headless and in tests.
	BackendNull
)

// String returns the backend's name.
func (b Backend) String() string {
	switch b {
	case BackendPulse:
		return "pulse"
	case BackendALSA:
		return "alsa"
	case BackendNull:
		return "null"
	default:
		return "auto"
	}
}

func (b Backend) malgo() []malgo.Backend {
	switch b {
	case BackendPulse:
		return []malgo.Backend{malgo.BackendPulseaudio}
	case BackendALSA:
		return []malgo.Backend{malgo.BackendAlsa}
	case BackendNull:
		// malgo v0.11.24's BackendNull names miniaudio's custom backend
		// (malgo's enum lacks "custom"); the null backend is the next one.
		return []malgo.Backend{malgo.BackendNull + 1}
	default:
		bs := []malgo.Backend{malgo.BackendPulseaudio}
		if haveSoundCards() {
			bs = append(bs, malgo.BackendAlsa)
		}
		// Not JACK: with no JACK server its client library crashes inside
		// miniaudio's context init (seen with PulseAudio gone and no ALSA
		// card), and PipeWire, the usual JACK provider, speaks Pulse too.
		return bs
	}
}

// haveSoundCards reports whether ALSA has any card. Without one, trying
// ALSA only fills stderr with libasound's complaints, burying the one
// notice that matters: there is no audio.
func haveSoundCards() bool {
	b, err := os.ReadFile("/proc/asound/cards")
	return err == nil && !strings.Contains(string(b), "no soundcards")
}

// audio is one malgo context and the devices opened from it.
type audio struct {
	mu  sync.Mutex // device init/uninit; miniaudio's context is not documented as reentrant
	ctx *malgo.AllocatedContext
}

func openAudio(b Backend) (*audio, error) {
	// A real-time audio thread keeps a 10 ms buffer fed on a busy
	// machine; without the privilege miniaudio falls back to a normal one.
	ctx, err := malgo.InitContext(b.malgo(), malgo.ContextConfig{ThreadPriority: malgo.ThreadPriorityRealtime}, nil)
	if err != nil {
		return nil, fmt.Errorf("open %s audio: %w: %v", b, ErrNoAudio, err)
	}
	return &audio{ctx: ctx}, nil
}

func (a *audio) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	_ = a.ctx.Uninit()
	a.ctx.Free()
}

// deviceSpec says how to open one mono s16 stream.
type deviceSpec struct {
	kind   malgo.DeviceType // malgo.Playback or malgo.Capture
	name   string           // device id or name substring; "" is the default device
	rate   int
	period time.Duration
	data   malgo.DataProc
	stop   malgo.StopProc // optional
}

// device is an initialized (and possibly started) malgo device.
type device struct {
	a   *audio
	dev *malgo.Device
}

// open initializes and starts a device. Failure is ErrNoAudio: whatever
// the cause, the caller's answer is the same.
func (a *audio) open(s deviceSpec) (*device, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	cfg := malgo.DefaultDeviceConfig(s.kind)
	cfg.SampleRate = uint32(s.rate)
	cfg.PeriodSizeInMilliseconds = uint32(max(s.period/time.Millisecond, 1))
	// On PulseAudio miniaudio asks for a server buffer of period×periods:
	// for capture that is how long a stalled process may fall behind
	// before the server drops audio, so capture keeps a second of slack
	// (a loaded two-core machine stalled it past 200 ms). Latency is
	// unaffected: it is set by the period, delivered one at a time. For
	// playback the server's target buffer is one period.
	cfg.Periods = 2
	if s.kind == malgo.Capture {
		cfg.Periods = uint32(max(time.Second/s.period, 2))
	}
	cfg.PerformanceProfile = malgo.LowLatency
	sub := malgo.SubConfig{Format: malgo.FormatS16, Channels: 1}
	var pin runtime.Pinner
	defer pin.Unpin()
	if s.name != "" {
		id, err := a.find(s.kind, s.name)
		if err != nil {
			return nil, err
		}
		pin.Pin(id)
		sub.DeviceID = unsafe.Pointer(id)
	}
	if s.kind == malgo.Capture {
		cfg.Capture = sub
	} else {
		cfg.Playback = sub
	}
	dev, err := malgo.InitDevice(a.ctx.Context, cfg, malgo.DeviceCallbacks{Data: s.data, Stop: s.stop})
	if err != nil {
		return nil, fmt.Errorf("open %s device %q: %w: %v", kindName(s.kind), s.name, ErrNoAudio, err)
	}
	if err := dev.Start(); err != nil {
		dev.Uninit()
		return nil, fmt.Errorf("start %s device %q: %w: %v", kindName(s.kind), s.name, ErrNoAudio, err)
	}
	return &device{a: a, dev: dev}, nil
}

// halt stops the device; after it returns the data callback no longer
// runs. On PulseAudio this corks the stream, which silences it at once.
func (d *device) halt() { _ = d.dev.Stop() }

// close stops and releases the device. Buffered audio is dropped with the
// stream, so nothing stale plays when a new device starts.
func (d *device) close() {
	d.halt()
	d.a.mu.Lock()
	defer d.a.mu.Unlock()
	d.dev.Uninit()
}

// find returns the id of the first device whose id or name contains name.
func (a *audio) find(kind malgo.DeviceType, name string) (*malgo.DeviceID, error) {
	infos, err := a.ctx.Devices(kind)
	if err != nil {
		return nil, fmt.Errorf("list %s devices: %w: %v", kindName(kind), ErrNoAudio, err)
	}
	for i := range infos {
		id := infos[i].ID
		raw := id[:]
		if j := bytes.IndexByte(raw, 0); j >= 0 {
			raw = raw[:j]
		}
		if string(raw) == name {
			return &infos[i].ID, nil
		}
	}
	for i := range infos {
		if strings.Contains(infos[i].Name(), name) {
			return &infos[i].ID, nil
		}
	}
	return nil, fmt.Errorf("find %s device %q: %w", kindName(kind), name, ErrNoAudio)
}

func kindName(k malgo.DeviceType) string {
	if k == malgo.Capture {
		return "capture"
	}
	return "playback"
}
