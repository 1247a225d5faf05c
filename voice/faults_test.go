package voice

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// The sound server SIGKILLed mid-message, at the device level, through to
// Close: the message ends within stallAfter and a little, a later Say fails
// fast with ErrNoAudio instead of blocking, the microphone cannot open, and
// Close returns promptly with no goroutine of the Voice left behind. The
// child process talks to a private PulseAudio of the test's own (never the
// shared one, which other tests use); the parent kills it by its PID.
func TestFaultServerKilledThenClose(t *testing.T) {
	if os.Getenv("VOICE_FAULT_CHILD") == "1" {
		faultChild()
		return
	}
	server, kill := testenv.PrivatePulse(t, "fault")
	runFaultChild(t, "^TestFaultServerKilledThenClose$", server, kill)
}

// A healthy server whose sink was idle (a null sink nobody reads: it works
// in blocks of up to 2 s) may take over a second to call a new stream back
// the first time. That is a slow start, not a lost device: the message
// plays whole.
func TestFaultIdleSinkIsNotLost(t *testing.T) {
	if os.Getenv("VOICE_FAULT_CHILD") == "1" {
		idleChild()
		return
	}
	server, _ := testenv.PrivatePulse(t, "fault")
	runFaultChild(t, "^TestFaultIdleSinkIsNotLost$", server, func() {})
}

func idleChild() {
	ctx, cancel, v := childVoice(30 * time.Second)
	defer cancel()
	defer v.Close()
	for i := range 2 {
		start := time.Now()
		p, err := v.Say(ctx, "agent-1", "tone 440 1500ms")
		if err != nil {
			fmt.Printf("FAIL Say: %v\n", err)
			os.Exit(1)
		}
		select {
		case <-p.Done():
		case <-time.After(10 * time.Second):
			fmt.Println("FAIL the message never ended")
			os.Exit(1)
		}
		fmt.Printf("message %d: %v played in %v, interrupted %v, err %v\n", i+1, p.Played(), time.Since(start).Round(time.Millisecond), p.Interrupted(), p.Err())
		if p.Interrupted() || p.Err() != nil || p.Played() < 1400*time.Millisecond {
			fmt.Println("FAIL the message was cut on a healthy server")
		}
	}
	os.Exit(0)
}

// childVoice opens, in a child of runFaultChild, a Voice on the private
// sound server and the parent's speech server, within d; a child that
// cannot open one prints FAIL and exits.
func childVoice(d time.Duration) (context.Context, context.CancelFunc, *Voice) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	v, err := New(ctx, Config{BaseURL: os.Getenv("VOICE_TTS_URL"), APIKey: "test", Backend: BackendPulse})
	if err != nil {
		fmt.Printf("FAIL New: %v\n", err)
		os.Exit(1)
	}
	return ctx, cancel, v
}

// runFaultChild runs the test binary's test run as a child (with
// VOICE_FAULT_CHILD=1) on the private sound server at server, calling at
// once it prints PLAYING, and fails on its FAIL lines.
func runFaultChild(t *testing.T, run, server string, at func()) {
	t.Helper()
	srv := modeltest.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	child := exec.CommandContext(ctx, os.Args[0], "-test.run="+run, "-test.count=1")
	child.Env = append(os.Environ(), "VOICE_FAULT_CHILD=1", "PULSE_SERVER="+server, "VOICE_TTS_URL="+srv.URL)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	child.Stderr = &stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		line := lines.Text()
		t.Logf("child: %s", line)
		if line == "PLAYING" {
			at()
		}
		if strings.HasPrefix(line, "FAIL") {
			t.Error(line)
		}
	}
	if err := child.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
}

// faultChild plays a long tone, reports PLAYING, and checks what follows
// the server's death, printing FAIL lines for the parent.
func faultChild() {
	ctx, cancel, v := childVoice(30 * time.Second)
	defer cancel()
	p, err := v.Say(ctx, "agent-1", "tone 440 20s")
	if err != nil {
		fmt.Printf("FAIL Say: %v\n", err)
		os.Exit(1)
	}
	// The kill lands mid-message, once the device is calling back (a
	// device that never did is given firstBeatAfter instead).
	if !beating(v, 20, 10*time.Second) {
		fmt.Println("FAIL the device never called back")
	}
	fmt.Println("PLAYING")
	killed := time.Now()
	select {
	case <-p.Done():
		fmt.Printf("message ended %v after the kill: interrupted %v, err %v\n", time.Since(killed).Round(time.Millisecond), p.Interrupted(), p.Err())
		if !errors.Is(p.Err(), ErrNoAudio) || !p.Interrupted() || time.Since(killed) > stallAfter+time.Second {
			fmt.Println("FAIL want an interrupted message with ErrNoAudio within stallAfter+1s")
		}
	case <-time.After(8 * time.Second):
		fmt.Println("FAIL message never ended after the server died")
	}
	faultAfterDeath(ctx, v)
	os.Exit(0)
}

// beating waits until the playback device has called back n times, for at
// most d.
func beating(v *Voice, n uint64, d time.Duration) bool {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for v.player.periods.Load() < n {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

// faultAfterDeath checks a Voice whose server died: Say and Unmute fail
// fast, and Close returns promptly.
func faultAfterDeath(ctx context.Context, v *Voice) {
	start := time.Now()
	if _, err := v.Say(ctx, "agent-1", "tone 440 1s"); !errors.Is(err, ErrNoAudio) {
		fmt.Printf("FAIL Say after the server died: %v, want ErrNoAudio\n", err)
	}
	if err := v.Unmute(ctx); err == nil {
		fmt.Println("FAIL Unmute after the server died: no error")
	}
	if d := time.Since(start); d > 3*time.Second {
		fmt.Printf("FAIL Say and Unmute took %v\n", d)
	}
	closed := make(chan struct{})
	start = time.Now()
	go func() {
		v.Close()
		close(closed)
	}()
	select {
	case <-closed:
		fmt.Printf("closed in %v\n", time.Since(start).Round(time.Millisecond))
		// Close waits for the Voice's own goroutines: none may be left.
		buf := make([]byte, 1<<20)
		if st := string(buf[:runtime.Stack(buf, true)]); strings.Contains(st, "vroom/voice.(*player).run") || strings.Contains(st, "vroom/voice.(*mic)") {
			fmt.Printf("FAIL goroutines of the Voice left after Close:\n%s\n", strings.ReplaceAll(st, "\n", "\n  "))
		}
	case <-time.After(3 * time.Second):
		fmt.Println("FAIL Close blocked after the server died")
	}
}
