package app

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vroom/agents"
	"vroom/internal/modeltest"
)

// The sound server dying mid-message, at the level of a run: vroom run
// --voice against a PulseAudio of the test's own (its own runtime dir and
// socket; the shared one other tests use is never touched), SIGKILLed while
// the planner's message plays. The run goes on text-only and finishes.

// privatePulse starts a PulseAudio of the test's own with one null sink,
// and returns the PULSE_SERVER setting for its clients and its PID.
func privatePulse(t *testing.T) (server string, pid int) {
	t.Helper()
	prog, err := exec.LookPath("pulseaudio")
	if err != nil {
		t.Skip("no pulseaudio here")
	}
	dir := t.TempDir()
	sock := dir + "/native"
	// Daemonized, pulseaudio returns once it is ready to serve.
	cmd := exec.Command(prog, "-D", "-n", "--exit-idle-time=-1", "--disallow-exit",
		"--use-pid-file=yes", "--log-target=file:"+dir+"/log",
		"-L", "module-native-protocol-unix auth-anonymous=1 socket="+sock,
		"-L", "module-null-sink sink_name=fault_speaker")
	// Off the session bus: the shared PulseAudio owns org.PulseAudio1 there.
	cmd.Env = append(os.Environ(), "PULSE_RUNTIME_PATH="+dir, "PULSE_STATE_PATH="+dir, "HOME="+dir,
		"DBUS_SESSION_BUS_ADDRESS=unix:path="+dir+"/no-bus")
	if out, err := cmd.CombinedOutput(); err != nil {
		log, _ := os.ReadFile(dir + "/log")
		t.Fatalf("pulseaudio: %v: %s%s", err, out, log)
	}
	b, err := os.ReadFile(dir + "/pid")
	if err != nil {
		t.Fatal(err)
	}
	if pid, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
		t.Fatal(err)
	}
	// Killed by its own PID, whatever the test did to it.
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	return "PULSE_SERVER=unix:" + sock, pid
}

// TestFaultSoundServerKilledMidMessage: the planner's 20 s message is
// playing when PulseAudio is SIGKILLed. The message ends (interrupted) and
// the floor is free within 2 s; the planner's next message is shown
// text-only; the run finishes and vroom run exits 0 well within its
// deadline: no goroutine is left blocked on the dead server.
func TestFaultSoundServerKilledMidMessage(t *testing.T) {
	needBrowser(t)
	server, pid := privatePulse(t)
	srv := modeltest.New(t)
	toneSpeech(srv, map[string]tone{"long story": {freq: 500, d: 20 * time.Second}, "afterwards": {freq: 800, d: time.Second}})
	dead := make(chan struct{})
	srv.Script("planner", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch n := r.ToolResults(); {
		case n == 0:
			return call("speak", "text", "Here is a long story.")
		case n == 1:
			// The long story is playing: the next message waits for the
			// server's death.
			select {
			case <-dead:
			case <-time.After(30 * time.Second):
			}
		case strings.HasPrefix(r.LastText(), "said"):
			return done("spoke twice", true)
		}
		// Again until the floor is free: the dead server's message holds
		// it until the voice sees the device gone.
		return modeltest.Slow(50*time.Millisecond, call("speak", "text", "And this comes afterwards."))
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
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	close(dead)
	if err := r.wait(t, 20*time.Second); err != nil {
		t.Fatalf("exit %v\nstdout:\n%s\nstderr:\n%s", err, r.out.String(), r.err.String())
	}
	checkSoundServerDeath(t, r, at)
}

// checkSoundServerDeath reads the run's log: the first message
// interrupted, the floor free and the second message shown text-only
// within bounds of the death at, and the exit soon after.
func checkSoundServerDeath(t *testing.T, r *voiceRun, at time.Time) {
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
