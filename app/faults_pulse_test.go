package app

import (
	"strings"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

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
	toneSpeech(srv, map[string]tone{"long story": {freq: 500, d: 20 * time.Second}, "afterwards": {freq: 800, d: time.Second}})
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
