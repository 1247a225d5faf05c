package agents

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

func newTestFloor() (*floor, *fakeClock) {
	clk := newFakeClock()
	return newFloor(FloorConfig{Clock: clk}), clk
}

func isDone(c *floorClaim) bool {
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

func TestFloorFirstComeFirstServed(t *testing.T) {
	t.Parallel()
	f, clk := newTestFloor()
	a, err := f.Claim("agent 1")
	if err != nil {
		t.Fatal(err)
	}
	a.Playing(8 * time.Second)
	clk.Advance(3 * time.Second)

	_, err = f.Claim("agent 2")
	var busy *busyError
	if !errors.As(err, &busy) || !errors.Is(err, errFloorBusy) {
		t.Fatalf("second claim: %v, want BusyError", err)
	}
	if busy.Speaker != "agent 1" || busy.Left != 5*time.Second {
		t.Fatalf("rejection says %q with %v left, want agent 1 with 5s", busy.Speaker, busy.Left)
	}
	if msg := err.Error(); msg != "the floor is busy: agent 1 is speaking, about 5s left" {
		t.Fatalf("message %q", msg)
	}
	a.Release()
	if a.Reason() != claimReleased || !isDone(a) {
		t.Fatalf("reason %v", a.Reason())
	}
	b, err := f.Claim("agent 2")
	if err != nil || f.State().Speaker != "agent 2" {
		t.Fatalf("after release: %v, state %+v", err, f.State())
	}
	b.Release()
	if !f.State().Free() {
		t.Fatal("floor not free")
	}
}

func TestFloorOneClaimPerAgent(t *testing.T) {
	t.Parallel()
	f, _ := newTestFloor()
	a, _ := f.Claim("agent 1")
	if _, err := f.Claim("agent 1"); !errors.Is(err, errAlreadyHolding) {
		t.Fatalf("second claim by the holder: %v", err)
	}
	if isDone(a) || f.State().Speaker != "agent 1" {
		t.Fatal("a repeated claim disturbed the first")
	}
}

func TestFloorClaimWithoutSpeechExpires(t *testing.T) {
	t.Parallel()
	f, clk := newTestFloor()
	a, _ := f.Claim("agent 1")
	clk.Advance(4 * time.Second)
	_, err := f.Claim("agent 2")
	var busy *busyError
	if !errors.As(err, &busy) || busy.Left != 6*time.Second {
		t.Fatalf("before playing, time left is the TTL's: %v", err)
	}
	clk.Advance(6*time.Second - time.Millisecond)
	if isDone(a) {
		t.Fatal("expired early")
	}
	clk.Advance(time.Millisecond)
	if !isDone(a) || a.Reason() != claimExpired || !f.State().Free() {
		t.Fatalf("after the TTL: done=%v reason=%v", isDone(a), a.Reason())
	}
	// A late Playing on an expired claim does not take the floor back.
	a.Playing(time.Second)
	if !f.State().Free() {
		t.Fatal("expired claim came back")
	}
}

func TestFloorHeldUntilReportedEndOfPlayback(t *testing.T) {
	t.Parallel()
	f, clk := newTestFloor()
	a, _ := f.Claim("agent 1")
	clk.Advance(2 * time.Second) // speech endpoint's first byte
	a.Playing(5 * time.Second)
	// Playback runs long (a slow device): past the estimate and the
	// original TTL, the floor is still held because the voice has not
	// reported the end.
	clk.Advance(12 * time.Second)
	if isDone(a) {
		t.Fatal("released before the voice reported the end")
	}
	if s := f.State(); s.Speaker != "agent 1" || !s.Playing || s.Left != 0 {
		t.Fatalf("state %+v", s)
	}
	a.Release()
	if a.Reason() != claimReleased || !f.State().Free() {
		t.Fatal("not released at reported end")
	}
	// Never reported: released a TTL after the expected end.
	b, _ := f.Claim("agent 2")
	b.Playing(5 * time.Second)
	clk.Advance(15 * time.Second)
	if !isDone(b) || b.Reason() != claimReleased {
		t.Fatal("a lost end-of-playback report kept the floor")
	}
}

func TestFloorTextOnlyReadingTime(t *testing.T) {
	t.Parallel()
	f, clk := newTestFloor()
	text := "one two three four five six seven eight nine ten eleven twelve"
	d := f.ReadingTime(text) // 12 words at 180 wpm
	if d != 4*time.Second {
		t.Fatalf("reading time %v", d)
	}
	a, _ := f.Claim("agent 1")
	a.ReadFor(d)
	clk.Advance(d - time.Millisecond)
	if isDone(a) {
		t.Fatal("released early")
	}
	clk.Advance(time.Millisecond)
	if a.Reason() != claimReleased {
		t.Fatal("not released after reading time")
	}
}

func TestFloorUserPreempts(t *testing.T) {
	t.Parallel()
	var states []FloorState
	clk := newFakeClock()
	f := newFloor(FloorConfig{Clock: clk, OnChange: func(s FloorState) { states = append(states, s) }})
	a, _ := f.Claim("agent 1")
	a.Playing(10 * time.Second)
	stopped := false
	a.OnInterrupt(func() { stopped = true })

	got := f.TakeUser()
	if got != a || a.Reason() != claimInterrupted || !stopped {
		t.Fatalf("interrupted=%v reason=%v stopped=%v", got == a, a.Reason(), stopped)
	}
	if s := f.State(); s.Speaker != User {
		t.Fatalf("user does not hold the floor: %+v", s)
	}
	_, err := f.Claim("agent 2")
	var busy *busyError
	if !errors.As(err, &busy) || busy.Speaker != User || err.Error() != "the floor is busy: the user is speaking" {
		t.Fatalf("claim while the user speaks: %v", err)
	}
	if f.TakeUser() != nil {
		t.Fatal("taking twice interrupted something")
	}
	f.ReleaseUser()
	if !f.State().Free() {
		t.Fatal("floor not free after the user")
	}
	// OnInterrupt after the fact still stops the audio.
	late := false
	a.OnInterrupt(func() { late = true })
	if !late {
		t.Fatal("late OnInterrupt not called")
	}
	// The change stream saw: agent 1 claims, plays, user takes, user releases.
	want := []string{"agent 1", "agent 1", "", User, ""}
	if len(states) != len(want) {
		t.Fatalf("states %+v", states)
	}
	for i, s := range states {
		if s.Speaker != want[i] {
			t.Fatalf("state %d: %+v, want speaker %q", i, s, want[i])
		}
	}
}

// TestFloorRandomInterleavings drives four agents and the person through
// 1,000 seeded random schedules and checks the floor's invariants after
// every operation.
func TestFloorRandomInterleavings(t *testing.T) {
	t.Parallel()
	for seed := uint64(0); seed < 1000; seed++ {
		clk := newFakeClock()
		sim := &floorSim{t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, 42)), clk: clk,
			f: newFloor(FloorConfig{Clock: clk, TTL: 10 * time.Second}), held: map[string]*floorClaim{}}
		for range 60 {
			sim.check(sim.step())
		}
		sim.drain()
	}
}

// floorSim is one seeded interleaving of claims, playback, releases, the
// person and time, with the floor's rules checked after every step.
type floorSim struct {
	t         *testing.T
	seed      uint64
	rng       *rand.Rand
	clk       *fakeClock
	f         *floor
	claims    []*floorClaim
	held      map[string]*floorClaim
	userHolds bool
}

var simAgents = [...]string{"agent 1", "agent 2", "agent 3", "agent 4"}

// step does one random thing and says what.
func (s *floorSim) step() (op string) {
	t, seed := s.t, s.seed
	switch k := s.rng.IntN(10); {
	case k < 4:
		return s.claim(simAgents[s.rng.IntN(len(simAgents))])
	case k < 6:
		for _, c := range s.claims {
			if !isDone(c) {
				op = "play " + c.speaker
				if s.rng.IntN(2) == 0 {
					c.Playing(time.Duration(s.rng.IntN(8000)) * time.Millisecond)
				} else {
					c.ReadFor(time.Duration(s.rng.IntN(8000)) * time.Millisecond)
				}
			}
		}
	case k < 7:
		for _, c := range s.claims {
			if !isDone(c) {
				op = "release " + c.speaker
				c.Release()
			}
		}
	case k < 8:
		op = "user takes"
		interrupted := s.f.TakeUser()
		s.userHolds = true
		if s.f.State().Speaker != User {
			t.Fatalf("seed %d: the user did not get the floor at once", seed)
		}
		if interrupted != nil && interrupted.Reason() != claimInterrupted {
			t.Fatalf("seed %d: interrupted claim ended %v", seed, interrupted.Reason())
		}
	case k < 9:
		op = "user releases"
		s.f.ReleaseUser()
		s.userHolds = false
	default:
		d := time.Duration(s.rng.IntN(12000)) * time.Millisecond
		op = fmt.Sprintf("advance %v", d)
		s.clk.Advance(d)
	}
	return op
}

func (s *floorSim) claim(a string) string {
	free := s.f.State().Free()
	c, err := s.f.Claim(a)
	if free && err != nil {
		s.t.Fatalf("seed %d: claim on a free floor failed: %v", s.seed, err)
	}
	if err == nil {
		s.claims = append(s.claims, c)
		s.held[a] = c
	} else if prev := s.held[a]; prev != nil && !isDone(prev) && !errors.Is(err, errAlreadyHolding) {
		s.t.Fatalf("seed %d: holder re-claim: %v", s.seed, err)
	}
	return "claim " + a
}

// check asserts the floor's rules: one speaker at most, the person
// preempting everyone, and a state that names the live claim.
func (s *floorSim) check(op string) {
	live := 0
	var holder string
	for _, c := range s.claims {
		if !isDone(c) {
			live++
			holder = c.speaker
		}
	}
	st := s.f.State()
	switch {
	case s.userHolds && (live != 0 || st.Speaker != User):
		s.t.Fatalf("seed %d after %s: user holds but %d agent claims live, state %+v", s.seed, op, live, st)
	case live > 1:
		s.t.Fatalf("seed %d after %s: %d speakers at once", s.seed, op, live)
	case !s.userHolds && live == 1 && st.Speaker != holder:
		s.t.Fatalf("seed %d after %s: state says %q, live claim is %q", s.seed, op, st.Speaker, holder)
	case !s.userHolds && live == 0 && !st.Free():
		s.t.Fatalf("seed %d after %s: no live claim but state %+v", s.seed, op, st)
	}
}

// drain checks that no claim is lost: with the person gone and time
// passing, every claim ends with a reason and the floor is free again.
func (s *floorSim) drain() {
	s.f.ReleaseUser()
	s.clk.Advance(time.Minute)
	for _, c := range s.claims {
		if !isDone(c) || c.Reason() == claimHolding {
			s.t.Fatalf("seed %d: claim by %s never ended", s.seed, c.speaker)
		}
	}
	if !s.f.State().Free() {
		s.t.Fatalf("seed %d: floor stuck with %+v", s.seed, s.f.State())
	}
}

// TestFloorConcurrent hammers the floor from four agent goroutines and the
// person at once, on the wall clock, and checks every transition the floor
// reported: the floor only passes between agents through "free", and the
// person never waits.
func TestFloorConcurrent(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var states []FloorState
	f := newFloor(FloorConfig{TTL: 2 * time.Millisecond, OnChange: func(s FloorState) {
		mu.Lock()
		states = append(states, s)
		mu.Unlock()
	}})
	var wg sync.WaitGroup
	for i := 1; i <= 4; i++ {
		wg.Add(1)
		go func(name string) {
			defer wg.Done()
			for n := 0; n < 300; n++ {
				c, err := f.Claim(name)
				if err != nil {
					continue
				}
				switch n % 3 {
				case 0:
					c.ReadFor(time.Duration(n%5) * 100 * time.Microsecond)
				case 1:
					c.Playing(time.Millisecond)
					c.Release()
				default: // no speech: left to expire
				}
			}
		}(fmt.Sprintf("agent %d", i))
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; n < 200; n++ {
			f.TakeUser()
			if s := f.State(); s.Speaker != User {
				t.Errorf("the user asked for the floor and got %+v", s)
			}
			f.ReleaseUser()
		}
	}()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	prev := ""
	for i, s := range states {
		if prev != "" && s.Speaker != "" && s.Speaker != prev && s.Speaker != User {
			t.Fatalf("transition %d: floor passed from %q to %q without being free", i, prev, s.Speaker)
		}
		prev = s.Speaker
	}
	if len(states) < 400 {
		t.Fatalf("only %d transitions: the test did not exercise the floor", len(states))
	}
}
