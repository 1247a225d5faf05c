package cli

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// `vroom run --voice` as a real process against a real PulseAudio: the last
// message plays to its end (within speechGrace) before the process exits,
// and a second Ctrl-C quits at once. What the speaker played is heard
// through its sink's monitor, by frequency, so another test's sound on the
// same sink is not mistaken for this one's.

// toneSpeech makes the speech endpoint answer each message with a tone:
// the first of tones whose key the message contains.
func toneSpeech(srv *modeltest.Server, tones map[string]sound) {
	srv.SetSpeech(func(r modeltest.SpeechRequest) []byte {
		for k, tn := range tones {
			if strings.Contains(r.Input, k) {
				return tn.pcm()
			}
		}
		return sound{freq: 300, d: 300 * time.Millisecond}.pcm()
	})
}

// sound is a sine wave the speech endpoint plays for a message.
type sound struct {
	freq float64
	d    time.Duration
}

// pcm renders the sound as s16le at the speech endpoint's rate.
func (sn sound) pcm() []byte {
	return modeltest.PCMBytes(modeltest.Tone(sn.freq, sn.d, modeltest.SpeechRate, 8000.0/math.MaxInt16))
}

// earRate and earWindow: the monitor is read in 10 ms windows, whose
// 100 Hz bins hold the test tones (multiples of 100 Hz) exactly.
const (
	earRate   = 24000
	earWindow = earRate / 100
)

// ear listens to a sink's monitor through parec and notes the windows in
// which its tone sounds, by their arrival.
type ear struct {
	freq  float64
	heard chan struct{} // closed at the first window with the tone

	mu          sync.Mutex
	first, last time.Time
	windows     int
}

// listenTone starts parec on monitor (env selects the server) until the test
// ends or the server dies.
func listenTone(t *testing.T, monitor string, freq float64, env ...string) *ear {
	t.Helper()
	cmd := exec.Command("parec", "--raw", "--format=s16le", "--channels=1", fmt.Sprintf("--rate=%d", earRate), "--latency-msec=10", "-d", monitor)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("parec: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	e := &ear{freq: freq, heard: make(chan struct{})}
	go e.read(out)
	return e
}

func (e *ear) read(r io.Reader) {
	buf := make([]byte, earWindow*2)
	s := make([]int16, earWindow)
	for {
		if _, err := io.ReadFull(r, buf); err != nil {
			return
		}
		now := time.Now()
		for i := range s {
			s[i] = int16(binary.LittleEndian.Uint16(buf[2*i:]))
		}
		if !hasTone(s, e.freq) {
			continue
		}
		e.mu.Lock()
		if e.windows == 0 {
			e.first = now
			close(e.heard)
		}
		e.windows++
		e.last = now
		e.mu.Unlock()
	}
}

// hasTone reports whether s is mostly a tone of freq (Goertzel's power at
// freq against the window's energy) and loud enough to be one of ours.
func hasTone(s []int16, freq float64) bool {
	coeff := 2 * math.Cos(2*math.Pi*freq/earRate)
	var s1, s2, energy float64
	for _, v := range s {
		x := float64(v)
		s1, s2 = x+coeff*s1-s2, s1
		energy += x * x
	}
	power := s1*s1 + s2*s2 - coeff*s1*s2
	n := float64(len(s))
	return energy/n > 1000*1000 && power/(energy*n/2) > 0.5
}

// span is what the ear heard: from the first window to the last, and how
// much tone in all.
func (e *ear) span() (first, last time.Time, total time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.first, e.last, time.Duration(e.windows) * 10 * time.Millisecond
}

// heardAfter waits until the tone sounds after at, for at most d.
func (e *ear) heardAfter(at time.Time, d time.Duration) bool {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(deadline) {
		if _, last, _ := e.span(); last.After(at) {
			return true
		}
		<-tick.C
	}
	return false
}

// startVoiceRun starts vroom run --voice --json on srv with env over the
// test's own (the sound server).
func startVoiceRun(t *testing.T, srv *modeltest.Server, env ...string) *cliRun {
	t.Helper()
	return startCLI(t, "sk-test-voice", env, "run", "--json", "--voice", "--base-url", srv.URL, "--model", "executor", "--planner-model", "planner", "say something")
}

// firstRecord returns the first record of ev, failing the test without one.
func firstRecord(t *testing.T, recs []agents.LogRecord, ev agents.LogEvent) agents.LogRecord {
	t.Helper()
	for _, r := range recs {
		if r.Event == ev {
			return r
		}
	}
	t.Fatalf("no %s in the run log", ev)
	return agents.LogRecord{}
}

// TestFaultVoiceLastMessageFinishes: the planner says a 1.5 s message and
// finishes at once; vroom run exits only once the message has played to
// its end, within speechGrace of the run's end.
func TestFaultVoiceLastMessageFinishes(t *testing.T) {
	needBrowser(t)
	testenv.NeedPulse(t)
	const long = 1500 * time.Millisecond
	srv := modeltest.New(t)
	toneSpeech(srv, map[string]sound{"last word": {freq: 700, d: long}})
	srv.Then("planner", apptest.Call("speak", "text", "This is my last word."), apptest.Done("said it", true))
	e := listenTone(t, "vroom_speaker.monitor", 700)
	r := startVoiceRun(t, srv)
	if err := r.wait(t, 40*time.Second); err != nil {
		t.Fatalf("exit %v\n%s", err, r.err.String())
	}
	firstAt, lastAt, total := e.span()
	end := firstRecord(t, r.log(t), agents.LogRunDone).Time
	t.Logf("tone heard %v (of %v) from %v to %v after the run's end; exited %v after it", total, long,
		firstAt.Sub(end).Round(time.Millisecond), lastAt.Sub(end).Round(time.Millisecond), r.exitedAt.Sub(end).Round(time.Millisecond))
	if total < long-300*time.Millisecond {
		// On a loaded machine playback can run slower than real time;
		// then the grace, not the run's end, must be what cut it.
		if r.exitedAt.Sub(end) < speechGrace-500*time.Millisecond {
			t.Fatalf("only %v of the %v message played: it was cut at exit", total, long)
		}
		t.Logf("playback ran slow (%v of tone in %v): cut at the %v grace, as it must be", total, lastAt.Sub(firstAt), speechGrace)
	}
	if !lastAt.After(end) {
		t.Fatalf("the message had ended before the run did: nothing to drain")
	}
	if r.exitedAt.Before(lastAt) {
		t.Fatalf("exited %v before the message ended", lastAt.Sub(r.exitedAt))
	}
	if d := r.exitedAt.Sub(end); d > speechGrace+2*time.Second {
		t.Fatalf("exited %v after the run's end", d)
	}
}

// TestFaultVoiceSecondInterruptQuits: Ctrl-C stops the run while a 20 s
// message plays; the message goes on (the drain), and a second Ctrl-C
// quits at once, silencing it.
func TestFaultVoiceSecondInterruptQuits(t *testing.T) {
	needBrowser(t)
	testenv.NeedPulse(t)
	srv := modeltest.New(t)
	toneSpeech(srv, map[string]sound{"long story": {freq: 900, d: 20 * time.Second}})
	srv.Then("planner", apptest.Call("speak", "text", "Here is a long story."), modeltest.Slow(time.Minute, apptest.Done("never", true)))
	e := listenTone(t, "vroom_speaker.monitor", 900)
	r := startVoiceRun(t, srv)
	select {
	case <-e.heard:
	case err := <-r.exited:
		t.Fatalf("vroom run exited before speaking: %v\n%s", err, r.err.String())
	case <-time.After(40 * time.Second):
		t.Fatal("the message was never heard")
	}
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	first := time.Now()
	// Still playing well after the first Ctrl-C: the run is over, its
	// last message is not.
	if !e.heardAfter(first.Add(time.Second), 5*time.Second) {
		t.Fatal("the message stopped at the first Ctrl-C")
	}
	select {
	case err := <-r.exited:
		t.Fatalf("exited %v after the first Ctrl-C: %v", r.exitedAt.Sub(first), err)
	default:
	}
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	second := time.Now()
	err := r.wait(t, 5*time.Second)
	took := r.exitedAt.Sub(second)
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("exit %v", err)
	}
	_, lastAt, _ := e.span()
	t.Logf("second Ctrl-C %v after the first: exited %v later (%v); last tone %v after it", second.Sub(first).Round(time.Millisecond),
		took.Round(time.Millisecond), err, lastAt.Sub(second).Round(time.Millisecond))
	if took > 500*time.Millisecond {
		t.Fatalf("took %v to quit after the second Ctrl-C", took)
	}
}

// The sound server dying mid-message, at the level of a run: vroom run
// --voice against a PulseAudio of the test's own (its own runtime dir and
// socket; the shared one other tests use is never touched), SIGKILLed while
// the planner's message plays. The run goes on text-only and finishes.

// TestFaultSoundServerKilledMidMessage: the planner's 20 s message is
// playing when PulseAudio is SIGKILLed. The message ends (interrupted) and
// the floor is free within 2 s; the planner's next message is shown
// text-only; the run finishes and vroom run exits 0 well within its
// deadline: no goroutine is left blocked on the dead server.
func TestFaultSoundServerKilledMidMessage(t *testing.T) {
	needBrowser(t)
	addr, kill := testenv.PrivatePulse(t, "fault_speaker")
	server := "PULSE_SERVER=" + addr
	srv := modeltest.New(t)
	toneSpeech(srv, map[string]sound{"long story": {freq: 500, d: 20 * time.Second}, "afterwards": {freq: 800, d: time.Second}})
	dead := make(chan struct{})
	srv.Script("planner", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch n := r.ToolResults(); {
		case n == 0:
			return apptest.Call("speak", "text", "Here is a long story.")
		case n == 1:
			// The long story is playing: the next message waits for the
			// server's death.
			select {
			case <-dead:
			case <-time.After(30 * time.Second):
			}
		case strings.HasPrefix(r.LastText(), "said"):
			return apptest.Done("spoke twice", true)
		}
		// Again until the floor is free: the dead server's message holds
		// it until the voice sees the device gone.
		return modeltest.Slow(50*time.Millisecond, apptest.Call("speak", "text", "And this comes afterwards."))
	}})
	e := listenTone(t, "fault_speaker.monitor", 500, server)
	r := startVoiceRun(t, srv, server)
	select {
	case <-e.heard:
	case err := <-r.exited:
		t.Fatalf("vroom run exited before speaking: %v\nstdout:\n%s\nstderr:\n%s", err, r.out.String(), r.err.String())
	case <-time.After(40 * time.Second):
		t.Fatal("the message was never heard")
	}
	at := time.Now()
	kill()
	close(dead)
	if err := r.wait(t, 20*time.Second); err != nil {
		t.Fatalf("exit %v\nstdout:\n%s\nstderr:\n%s", err, r.out.String(), r.err.String())
	}
	checkSoundServerDeath(t, r, at)
}

// checkSoundServerDeath reads the run's log: the first message
// interrupted, the floor free and the second message shown text-only
// within bounds of the death at, and the exit soon after.
func checkSoundServerDeath(t *testing.T, r *cliRun, at time.Time) {
	t.Helper()
	recs := r.log(t)
	cut := firstRecord(t, recs, agents.LogInterrupted)
	failed := firstRecord(t, recs, agents.LogSpeechFailed)
	end := firstRecord(t, recs, agents.LogRunDone)
	var second time.Time
	for _, rec := range recs {
		if rec.Event == agents.LogFloorClaimed && rec.Time.After(at) {
			second = rec.Time
			break
		}
	}
	t.Logf("sound server killed → message cut %v, floor claimed again %v, text-only message %v, run done %v, exit %v later (%q)",
		cut.Time.Sub(at).Round(time.Millisecond), second.Sub(at).Round(time.Millisecond), failed.Time.Sub(at).Round(time.Millisecond),
		end.Time.Sub(at).Round(time.Millisecond), r.exitedAt.Sub(at).Round(time.Millisecond), failed.Error)
	if !strings.Contains(cut.Text, "long story") || cut.Time.Sub(at) > 2*time.Second {
		t.Errorf("the first message %q was cut %v after the death", cut.Text, cut.Time.Sub(at))
	}
	if second.IsZero() || second.Sub(at) > 2500*time.Millisecond {
		t.Errorf("the floor was claimed again %v after the death", second.Sub(at))
	}
	if failed.Agent != "planner" || !failed.Time.After(at) {
		t.Errorf("speech failed: %+v", failed)
	}
	if !strings.Contains(r.out.String(), "And this comes afterwards.") {
		t.Errorf("the second message is not in the events:\n%s", r.out.String())
	}
	if d := r.exitedAt.Sub(at); d > 10*time.Second {
		t.Errorf("exited %v after the death", d)
	}
}
