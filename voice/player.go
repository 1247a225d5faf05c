package voice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gen2brain/malgo"
)

// ErrMicOpen reports a Say while the microphone is open: the person holds
// the floor, and an agent speaking now would be heard by the microphone.
var ErrMicOpen = errors.New("microphone is open")

// ErrClosed reports use of a closed Voice.
var ErrClosed = errors.New("voice closed")

// idleClose is how long the playback device stays open with nothing to
// play, so back-to-back messages do not pay for opening it again.
const idleClose = 3 * time.Second

// Playback is one message being played. Its methods are safe for
// concurrent use.
type Playback struct {
	speaker string
	voice   string
	pl      *player
	done    chan struct{}
	cancel  context.CancelFunc

	// Guarded by pl.mu.
	state       int
	pending     []int16 // received, not yet in the ring
	srcDone     bool
	start, end  uint64 // ring positions of the first and one past the last sample
	played      time.Duration
	interrupted bool
	err         error
}

const (
	queued  = iota // waiting for an earlier message to finish
	writing        // the ring holds (or is being fed) its samples
	written        // every sample is in the ring
	finished
)

// Done is closed when the message has finished playing, was stopped, or
// failed.
func (p *Playback) Done() <-chan struct{} { return p.done }

// Played is how much audio actually reached the device. It is valid after
// Done is closed.
func (p *Playback) Played() time.Duration {
	p.pl.mu.Lock()
	defer p.pl.mu.Unlock()
	return p.played
}

// Interrupted reports whether the message was stopped before its end.
func (p *Playback) Interrupted() bool {
	p.pl.mu.Lock()
	defer p.pl.mu.Unlock()
	return p.interrupted
}

// Err is the error that cut the stream short (the speech endpoint or the
// device failing), or nil. It is valid after Done is closed.
func (p *Playback) Err() error {
	p.pl.mu.Lock()
	defer p.pl.mu.Unlock()
	return p.err
}

// Speaker is the speaker id the message was said by.
func (p *Playback) Speaker() string { return p.speaker }

// Voice is the voice the message is spoken in.
func (p *Playback) Voice() string { return p.voice }

// Stop silences the message at once (the device is halted, not drained)
// and marks it interrupted. Later messages still play.
func (p *Playback) Stop() { p.pl.stop(p) }

// player owns the playback device. Messages play one at a time, in the
// order they were queued; the device callback only copies from the ring.
type player struct {
	a      *audio
	name   string
	rate   int
	period time.Duration

	ring      *ring
	wake      chan struct{} // callback and producers → pump
	expect    atomic.Bool   // the head message is still streaming in
	underruns atomic.Uint64
	halting   atomic.Bool   // we are stopping the device ourselves
	lost      atomic.Bool   // the device stopped on its own
	periods   atomic.Uint64 // data callbacks so far: the device's heartbeat

	mu       sync.Mutex
	dev      *device
	queue    []*Playback // head is the one playing
	lastBusy time.Time
	beat     uint64    // periods at lastBeat
	lastBeat time.Time // when the device last called back
	beating  bool      // the device has called back since it opened
	micOpen  bool
	closed   bool
}

func newPlayer(a *audio, name string, rate int, period time.Duration) *player {
	return &player{
		a:      a,
		name:   name,
		rate:   rate,
		period: period,
		ring:   newRing(rate * 2),
		wake:   make(chan struct{}, 1),
	}
}

// data is the device callback: copy, pad with silence, signal. It never
// blocks or allocates.
func (pl *player) data(out, _ []byte, _ uint32) {
	pl.periods.Add(1)
	dst := int16s(out)
	n := pl.ring.Read(dst)
	if n < len(dst) {
		clear(dst[n:])
		if pl.expect.Load() {
			pl.underruns.Add(1)
		}
	}
	pl.signal()
}

// stopped is the device's stop callback. A stop we did not ask for means
// the device or the sound server went away.
func (pl *player) stopped() {
	if !pl.halting.Load() {
		pl.lost.Store(true)
		pl.signal()
	}
}

func (pl *player) signal() {
	select {
	case pl.wake <- struct{}{}:
	default:
	}
}

// stallAfter is how long an open device may go without calling back
// before it counts as lost. PulseAudio's stream fails silently when the
// server dies: miniaudio neither stops the device nor reports it.
const stallAfter = time.Second

// firstBeatAfter is how long a newly opened device may take to call back
// the first time before it counts as lost. A healthy server whose sink was
// idle (a null sink nobody reads, a suspended card) starts a new stream in
// blocks of up to 2 s: with stallAfter alone, the first message after a
// quiet spell was cut after 10 ms as "device stopped".
const firstBeatAfter = 3 * time.Second

// run pumps until ctx ends. The ticker catches a device that went quiet,
// since a dead device no longer wakes the pump.
func (pl *player) run(ctx context.Context) {
	tick := time.NewTicker(stallAfter / 4)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			pl.shutdown()
			return
		case <-pl.wake:
		case <-tick.C:
		}
		pl.mu.Lock()
		pl.pump()
		pl.mu.Unlock()
	}
}

// pump moves received samples into the ring, finishes messages whose last
// sample the device has taken, and opens or closes the device. Only the
// head message is ever in the ring, so stopping it never touches another
// message's audio. Called with pl.mu held.
func (pl *player) pump() error {
	now := time.Now()
	if pl.dev != nil {
		limit := stallAfter
		if !pl.beating {
			limit = firstBeatAfter
		}
		if n := pl.periods.Load(); n != pl.beat {
			pl.beat, pl.lastBeat, pl.beating = n, now, true
		} else if now.Sub(pl.lastBeat) > limit {
			pl.lost.Store(true)
		}
	}
	if pl.lost.Swap(false) && pl.dev != nil {
		pl.halt()
		pl.fail(fmt.Errorf("play: device stopped: %w", ErrNoAudio))
	}
	for len(pl.queue) > 0 {
		h := pl.queue[0]
		if h.state == queued {
			h.state = writing
			h.start = pl.ring.Written()
		}
		if h.state == writing {
			n := pl.ring.Write(h.pending)
			h.pending = h.pending[n:]
			if len(h.pending) == 0 && h.srcDone {
				h.state = written
				h.end = pl.ring.Written()
			}
		}
		if h.state != written || pl.ring.Consumed() < h.end {
			break
		}
		pl.finish(h, h.end-h.start, false)
		pl.queue = pl.queue[1:]
	}
	pl.expect.Store(len(pl.queue) > 0 && pl.queue[0].state == writing)
	if len(pl.queue) == 0 {
		if pl.dev != nil && now.Sub(pl.lastBusy) > idleClose {
			pl.halt()
		}
		return nil
	}
	pl.lastBusy = now
	if pl.dev != nil {
		return nil
	}
	dev, err := pl.a.open(deviceSpec{kind: malgo.Playback, name: pl.name, rate: pl.rate, period: pl.period, data: pl.data, stop: pl.stopped})
	if err != nil {
		pl.fail(err)
		return err
	}
	pl.dev = dev
	pl.beat, pl.lastBeat, pl.beating = pl.periods.Load(), now, false
	return nil
}

// fail ends every message with err. The device must be closed. Called
// with pl.mu held.
func (pl *player) fail(err error) {
	if len(pl.queue) > 0 && pl.queue[0].state != queued {
		h := pl.queue[0]
		h.err = err
		pl.finish(h, min(pl.ring.Consumed(), h.endOr(pl.ring.Written()))-h.start, true)
	}
	for _, p := range pl.queue {
		if p.state != finished {
			p.err = err
			pl.finish(p, 0, false)
		}
	}
	pl.queue = nil
	pl.ring.Discard()
	pl.expect.Store(false)
}

// finish settles a message. Called with pl.mu held.
func (pl *player) finish(p *Playback, samples uint64, interrupted bool) {
	if p.state == finished {
		return
	}
	p.state = finished
	p.pending = nil
	p.played = time.Duration(samples) * time.Second / time.Duration(pl.rate)
	p.interrupted = interrupted
	p.cancel()
	close(p.done)
}

// enqueue queues a message and starts the device if needed.
func (pl *player) enqueue(p *Playback) error {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	switch {
	case pl.closed:
		return ErrClosed
	case pl.micOpen:
		return ErrMicOpen
	}
	pl.queue = append(pl.queue, p)
	return pl.pump()
}

// append adds streamed samples to a message; eof marks its end and err a
// failure that ended it early.
func (pl *player) append(p *Playback, s []int16, eof bool, err error) (stopped bool) {
	pl.mu.Lock()
	if p.state == finished {
		pl.mu.Unlock()
		return true
	}
	p.pending = append(p.pending, s...)
	if eof {
		p.srcDone = true
		p.err = err
	}
	pl.mu.Unlock()
	pl.signal()
	return false
}

// stop interrupts one message. If it is audible the device is halted and
// closed first: halting silences now, and closing drops what the sound
// server still buffers so it cannot leak into the next message.
func (pl *player) stop(p *Playback) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if p.state == finished {
		return
	}
	if len(pl.queue) > 0 && pl.queue[0] == p && p.state != queued {
		pl.halt()
		pl.finish(p, min(pl.ring.Consumed(), p.endOr(pl.ring.Written()))-p.start, true)
		pl.ring.Discard()
		pl.queue = pl.queue[1:]
		_ = pl.pump()
		return
	}
	for i, q := range pl.queue {
		if q == p {
			pl.queue = append(pl.queue[:i:i], pl.queue[i+1:]...)
			break
		}
	}
	pl.finish(p, 0, true)
}

func (p *Playback) endOr(w uint64) uint64 {
	if p.state == written {
		return p.end
	}
	return w
}

// halt closes the device so the ring has no consumer. Called with pl.mu
// held.
func (pl *player) halt() {
	if pl.dev != nil {
		pl.halting.Store(true)
		pl.dev.close()
		pl.halting.Store(false)
		pl.dev = nil
	}
}

// stopAll interrupts every message; with micOpen set it also refuses new
// ones until the microphone closes.
func (pl *player) stopAll(micOpen bool) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.micOpen = micOpen
	if len(pl.queue) == 0 {
		return
	}
	pl.halt()
	h := pl.queue[0]
	if h.state != queued {
		pl.finish(h, min(pl.ring.Consumed(), h.endOr(pl.ring.Written()))-h.start, true)
	}
	for _, p := range pl.queue {
		pl.finish(p, 0, true)
	}
	pl.queue = nil
	pl.ring.Discard()
	pl.expect.Store(false)
}

func (pl *player) setMicOpen(open bool) {
	pl.mu.Lock()
	pl.micOpen = open
	pl.mu.Unlock()
}

func (pl *player) shutdown() {
	pl.stopAll(false)
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.closed = true
	pl.halt()
}

// feed streams a source into a message until it ends or is stopped.
func (pl *player) feed(p *Playback, src *pcmReader) {
	defer src.Close()
	for {
		s, err := src.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			} else {
				err = fmt.Errorf("stream speech: %w", err)
			}
			pl.append(p, s, true, err)
			return
		}
		if pl.append(p, s, false, nil) {
			return
		}
	}
}
