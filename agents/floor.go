package agents

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// User is the speaker name of the person. The person is an agent with a
// veto: taking the floor never fails and interrupts whoever holds it.
const User = "user"

// Floor errors.
var (
	// errFloorBusy is wrapped by *busyError when someone else holds the
	// floor.
	errFloorBusy = errors.New("floor busy")
	// errAlreadyHolding is returned when an agent that holds the floor
	// claims it again: an agent never has two claims at once.
	errAlreadyHolding = errors.New("already holding the floor")
)

// busyError is a rejected claim. It says who speaks and roughly how long
// is left, so the agent can prepare its message meanwhile.
type busyError struct {
	Speaker string
	// Left is the estimated time until the floor is free; zero when
	// unknown (the person speaking).
	Left time.Duration
}

func (e *busyError) Error() string {
	if e.Speaker == User {
		return "the floor is busy: the user is speaking"
	}
	return fmt.Sprintf("the floor is busy: %s is speaking, about %s left", e.Speaker, roundLeft(e.Left))
}

// Unwrap makes errors.Is(err, errFloorBusy) true.
func (e *busyError) Unwrap() error { return errFloorBusy }

func roundLeft(d time.Duration) string {
	if d < time.Second {
		return "1s"
	}
	return d.Round(time.Second).String()
}

// endReason says how a claim ended.
type endReason int

// Reasons a claim ends.
const (
	// claimHolding: the claim has not ended.
	claimHolding endReason = iota
	// claimReleased: the message finished playing or its reading time passed.
	claimReleased
	// claimExpired: the claim produced no speech within the time-to-live.
	claimExpired
	// claimInterrupted: the person took the floor.
	claimInterrupted
)

func (r endReason) String() string {
	switch r {
	case claimHolding:
		return "holding"
	case claimReleased:
		return "released"
	case claimExpired:
		return "expired"
	case claimInterrupted:
		return "interrupted"
	}
	return fmt.Sprintf("EndReason(%d)", int(r))
}

// FloorState is a snapshot of the floor.
type FloorState struct {
	// Speaker holds the floor; "" when it is free.
	Speaker string `json:"speaker,omitempty"`
	// Since is when the speaker took the floor.
	Since time.Time `json:"since,omitzero"`
	// Left is the estimated time until the floor is free.
	Left time.Duration `json:"left,omitempty"`
	// Playing reports that the speaker's message has started.
	Playing bool `json:"playing,omitempty"`
}

// Free reports whether nobody holds the floor.
func (s FloorState) Free() bool { return s.Speaker == "" }

// String renders the state for a tool result.
func (s FloorState) String() string {
	switch {
	case s.Free():
		return "the floor is free: you may speak"
	case s.Speaker == User:
		return "the user is speaking: listen, do not speak"
	default:
		return fmt.Sprintf("%s is speaking (about %s left): prepare your message and speak when the floor is free", s.Speaker, roundLeft(s.Left))
	}
}

// FloorConfig configures a Floor.
type FloorConfig struct {
	// TTL is how long a claim may go without producing speech before it
	// expires (default 10 s).
	TTL time.Duration
	// WordsPerMinute sets the estimated reading time of a text-only
	// message (default 180).
	WordsPerMinute int
	// Clock drives every timeout (default the wall clock).
	Clock Clock
	// OnChange, when set, is called after every change with the new state.
	// It runs with the floor's lock held, so it must not block or call
	// back into the floor.
	OnChange func(FloorState)
}

// floor is the right to speak in a room: claimed, not given, first come
// first served, one speaker at a time. It is safe for concurrent use.
type floor struct {
	cfg FloorConfig

	mu     sync.Mutex
	claim  *floorClaim // the agent holding the floor, if any
	user   bool        // the person holds the floor
	userAt time.Time
}

// newFloor returns a free floor.
func newFloor(cfg FloorConfig) *floor {
	if cfg.TTL <= 0 {
		cfg.TTL = 10 * time.Second
	}
	if cfg.WordsPerMinute <= 0 {
		cfg.WordsPerMinute = 180
	}
	if cfg.Clock == nil {
		cfg.Clock = wallClock()
	}
	return &floor{cfg: cfg}
}

// ReadingTime estimates how long text takes to read or say.
func (f *floor) ReadingTime(text string) time.Duration {
	words := len(strings.Fields(text))
	wpm := time.Duration(f.cfg.WordsPerMinute)
	return time.Duration(max(words, 1)) * time.Minute / wpm
}

// floorClaim is one agent's hold on the floor.
type floorClaim struct {
	f       *floor
	speaker string
	at      time.Time
	done    chan struct{}

	// Guarded by f.mu.
	reason   endReason
	playing  bool
	until    time.Time // estimated end, once playing
	timer    Timer
	gen      int // which timer may end the claim: a stopped timer may still fire
	onInterr func()
}

// Speaker returns who holds the claim.
func (c *floorClaim) Speaker() string { return c.speaker }

// Done is closed when the claim ends, however it ends.
func (c *floorClaim) Done() <-chan struct{} { return c.done }

// Reason returns how the claim ended, or claimHolding.
func (c *floorClaim) Reason() endReason {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	return c.reason
}

// Claim takes the floor for speaker if it is free. While someone else holds
// it, the claim is rejected with a *busyError; a speaker that already holds
// it gets errAlreadyHolding. Claiming as User takes the floor at once
// (see TakeUser).
func (f *floor) Claim(speaker string) (*floorClaim, error) {
	if speaker == User {
		return nil, fmt.Errorf("claim floor: the user takes the floor with TakeUser")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.cfg.Clock.Now()
	if f.user {
		return nil, &busyError{Speaker: User}
	}
	if c := f.claim; c != nil {
		if c.speaker == speaker {
			return nil, fmt.Errorf("claim floor for %s: %w", speaker, errAlreadyHolding)
		}
		return nil, &busyError{Speaker: c.speaker, Left: c.left(now)}
	}
	c := &floorClaim{f: f, speaker: speaker, at: now, done: make(chan struct{})}
	c.timer = f.cfg.Clock.AfterFunc(f.cfg.TTL, c.timeout(claimExpired, 0))
	f.claim = c
	f.changed(now)
	return c, nil
}

// left estimates the time until c ends; f.mu is held.
func (c *floorClaim) left(now time.Time) time.Duration {
	if c.playing {
		return max(c.until.Sub(now), 0)
	}
	return max(c.at.Add(c.f.cfg.TTL).Sub(now), 0)
}

// Playing reports that the claim's speech has started and is expected to
// last d. The time-to-live no longer applies: the floor is now held until
// Release, the real end of playback. In case the end is never reported,
// the claim still ends a time-to-live after the expected end.
func (c *floorClaim) Playing(d time.Duration) {
	c.hold(d, d+c.f.cfg.TTL)
}

// ReadFor holds the floor for a text-only message's reading time d and then
// releases it.
func (c *floorClaim) ReadFor(d time.Duration) {
	c.hold(d, d)
}

func (c *floorClaim) hold(expected, release time.Duration) {
	f := c.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if c.reason != claimHolding {
		return
	}
	now := f.cfg.Clock.Now()
	c.timer.Stop()
	c.gen++
	c.playing = true
	c.until = now.Add(expected)
	c.timer = f.cfg.Clock.AfterFunc(release, c.timeout(claimReleased, c.gen))
	f.changed(now)
}

// timeout returns a timer callback that ends the claim with r unless a
// later timer replaced it.
func (c *floorClaim) timeout(r endReason, gen int) func() {
	return func() {
		c.f.mu.Lock()
		defer c.f.mu.Unlock()
		if c.gen == gen {
			c.end(r, true)
		}
	}
}

// Release ends the claim now: the message finished playing.
func (c *floorClaim) Release() { c.end(claimReleased, false) }

// OnInterrupt registers f to be called when the person interrupts the
// claim, to stop its audio. If the claim was already interrupted, f is
// called at once.
func (c *floorClaim) OnInterrupt(f func()) {
	c.f.mu.Lock()
	if c.reason == claimInterrupted {
		c.f.mu.Unlock()
		f()
		return
	}
	c.onInterr = f
	c.f.mu.Unlock()
}

func (c *floorClaim) end(r endReason, locked bool) {
	f := c.f
	if !locked {
		f.mu.Lock()
		defer f.mu.Unlock()
	}
	if c.reason != claimHolding {
		return
	}
	c.reason = r
	c.timer.Stop()
	if f.claim == c {
		f.claim = nil
	}
	close(c.done)
	if r == claimInterrupted && c.onInterr != nil {
		// Stopping audio must be immediate; the voice's Stop does not
		// block, so it is called here rather than queued.
		c.onInterr()
	}
	f.changed(f.cfg.Clock.Now())
}

// TakeUser gives the floor to the person at once, whoever holds it. The
// interrupted claim, if any, is returned so its message can be marked
// interrupted in the transcript.
func (f *floor) TakeUser() (interrupted *floorClaim) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.user {
		return nil
	}
	c := f.claim
	if c != nil {
		c.end(claimInterrupted, true)
	}
	f.user = true
	f.userAt = f.cfg.Clock.Now()
	f.changed(f.userAt)
	return c
}

// ReleaseUser ends the person's turn.
func (f *floor) ReleaseUser() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.user {
		return
	}
	f.user = false
	f.changed(f.cfg.Clock.Now())
}

// State returns a snapshot of the floor.
func (f *floor) State() FloorState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state(f.cfg.Clock.Now())
}

func (f *floor) state(now time.Time) FloorState {
	switch {
	case f.user:
		return FloorState{Speaker: User, Since: f.userAt}
	case f.claim != nil:
		c := f.claim
		return FloorState{Speaker: c.speaker, Since: c.at, Left: c.left(now), Playing: c.playing}
	}
	return FloorState{}
}

func (f *floor) changed(now time.Time) {
	if f.cfg.OnChange != nil {
		f.cfg.OnChange(f.state(now))
	}
}
