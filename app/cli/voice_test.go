package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/app/remote"
	"vroom/app/runner"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// wavStats returns a 16-bit mono WAV's duration and RMS level (0..1).
func wavStats(t *testing.T, wav []byte) (time.Duration, float64) {
	t.Helper()
	if len(wav) < 44 || string(wav[:4]) != "RIFF" || string(wav[8:12]) != "WAVE" {
		t.Fatalf("upload is not a WAV file (%d bytes)", len(wav))
	}
	rate := binary.LittleEndian.Uint32(wav[24:28])
	// Find the data chunk.
	i := 12
	for i+8 <= len(wav) && string(wav[i:i+4]) != "data" {
		i += 8 + int(binary.LittleEndian.Uint32(wav[i+4:i+8]))
	}
	if i+8 > len(wav) {
		t.Fatal("WAV has no data chunk")
	}
	data := wav[i+8:]
	n := len(data) / 2
	var sum float64
	for j := 0; j < n; j++ {
		v := float64(int16(binary.LittleEndian.Uint16(data[2*j:]))) / 32768
		sum += v * v
	}
	return time.Duration(n) * time.Second / time.Duration(rate), math.Sqrt(sum / float64(max(n, 1)))
}

// Voice through the whole product: `vroom run --voice
// --ptt`, Enter opens the microphone, real speech is played into the mic
// feed, Enter closes it; the clip is uploaded for transcription, and the
// text reaches both executors' next prompts and the planner's as a priority
// correction from the user.
func TestSpokenCorrectionReachesEveryone(t *testing.T) {
	needBrowser(t)
	testenv.NeedPulse(t)
	t.Parallel()
	clip, speechLen := spokenClip(t, "no, take the most recent repo")

	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	const heard = "take the most recent repo"
	srv.Transcribe(heard)
	srv.Script("planner", modeltest.PlannerScript(
		map[string]any{"task": "find the most popular repo", "url": s.URL + "/quote.html"},
		map[string]any{"task": "list its skills", "url": s.URL + "/quote.html"},
	))
	bothWaiting := scriptWaitForCorrection(srv, heard)

	pr, pw := io.Pipe()
	defer pw.Close()
	env := testEnv(t, srv)
	env.Stdin = pr
	userHasFloor := make(chan struct{})
	env.Ready = func(b *runner.BuiltRun, _ *remote.Pool) { closeOnUserFloor(b.Run, userHasFloor) }

	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	person := make(chan error, 1)
	go func() { person <- pushToTalk(ctx, t, pw, clip, bothWaiting, userHasFloor) }()

	var out, errb bytes.Buffer
	code := runTask(ctx, []string{"--voice", "--ptt", "find the most popular repo and list its skills"}, env, &out, &errb)
	if err := <-person; err != nil {
		t.Fatalf("the person never got to speak: %v\n%s\n%s", err, errb.String(), out.String())
	}
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errb.String(), out.String())
	}
	CheckUpload(t, srv, speechLen)
	checkHeardByEveryone(t, srv, heard)
	if !strings.Contains(out.String(), heard) {
		t.Errorf("the transcript lines lack the correction:\n%s", out.String())
	}
}

// spokenClip speaks text into a WAV file, padded with silence so the
// microphone is surely open before the words start, and returns it with
// the speech's own length.
func spokenClip(t *testing.T, text string) (string, time.Duration) {
	t.Helper()
	dir := t.TempDir()
	speech, clip := filepath.Join(dir, "speech.wav"), filepath.Join(dir, "clip.wav")
	if out, err := exec.Command("espeak-ng", "-w", speech, text).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v %s", err, out)
	}
	if out, err := exec.Command("sox", speech, clip, "pad", "0.6", "0.2").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v %s", err, out)
	}
	speechLen, _ := wavFileDuration(t, speech)
	return clip, speechLen
}

// scriptWaitForCorrection has both executors wait in a model call until
// the person has spoken; the correction cancels the call and re-issues it
// with the text, and they finish. The channel closes once both wait.
func scriptWaitForCorrection(srv *modeltest.Server, heard string) <-chan struct{} {
	var mu sync.Mutex
	inFlight := map[string]bool{}
	bothWaiting := make(chan struct{})
	var once sync.Once
	srv.Script("executor",
		modeltest.Step{Times: -1, Match: modeltest.LastMessageContains(heard), Func: func(r *modeltest.Request) modeltest.Reply {
			return apptest.Done("switched to the most recent repo", true)
		}},
		modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
			mu.Lock()
			inFlight[r.Chat.Messages[1].Content] = true
			if len(inFlight) == 2 {
				once.Do(func() { close(bothWaiting) })
			}
			mu.Unlock()
			return modeltest.Slow(time.Minute, apptest.Call("read_page"))
		}})
	return bothWaiting
}

// closeOnUserFloor closes c when the person takes the run's floor.
func closeOnUserFloor(run *agents.Run, c chan struct{}) {
	sub := run.Room().Subscribe(context.Background())
	go func() {
		var once sync.Once
		for e := range sub.C() {
			if fs, ok := e.Data.(agents.FloorState); ok && e.Kind == agents.EventFloor && fs.Speaker == agents.User {
				once.Do(func() { close(c) })
			}
		}
	}()
}

// pushToTalk is the person at vroom run's terminal: once both executors
// wait, Enter opens the microphone; once the floor is theirs, the clip
// plays into the mic feed; Enter again closes it.
func pushToTalk(ctx context.Context, t *testing.T, enter io.Writer, clip string, bothWaiting, userHasFloor <-chan struct{}) error {
	select {
	case <-bothWaiting:
	case <-ctx.Done():
		return ctx.Err()
	}
	io.WriteString(enter, "\n") // Enter: unmute
	select {
	case <-userHasFloor:
	case <-ctx.Done():
		return ctx.Err()
	}
	if out, err := exec.CommandContext(ctx, "paplay", "-d", "vroom_micfeed", clip).CombinedOutput(); err != nil {
		t.Errorf("paplay: %v %s", err, out)
	}
	io.WriteString(enter, "\n") // Enter: mute, transcribe
	return nil
}

// checkUpload checks the one clip sent for transcription: about the
// speech's length, with speech in it.
func CheckUpload(t *testing.T, srv *modeltest.Server, speechLen time.Duration) {
	t.Helper()
	ups := srv.Uploads()
	if len(ups) != 1 {
		t.Fatalf("%d uploads to /audio/transcriptions, want 1", len(ups))
	}
	got, rms := wavStats(t, ups[0].Data)
	if got < speechLen || got > speechLen+3*time.Second {
		t.Errorf("uploaded %v of audio for %v of speech", got, speechLen)
	}
	if rms < 0.01 {
		t.Errorf("uploaded audio has no speech energy (rms %.4f)", rms)
	}
	t.Logf("uploaded %v (speech %v), rms %.3f", got, speechLen, rms)
}

// checkHeardByEveryone checks that both executors' prompts and the
// planner's carried heard as the user's priority correction.
func checkHeardByEveryone(t *testing.T, srv *modeltest.Server, heard string) {
	t.Helper()
	marked := "PRIORITY INSTRUCTION FROM THE USER (it overrides your task where they conflict): " + heard
	var execHeard int
	for _, r := range srv.Requests("executor") {
		if strings.Contains(r.LastText(), marked) {
			execHeard++
		}
	}
	if execHeard < 2 {
		t.Errorf("%d executor prompts carried the spoken correction, want both executors'", execHeard)
	}
	plannerHeard := false
	for _, r := range srv.Requests("planner") {
		plannerHeard = plannerHeard || strings.Contains(r.Text(), marked)
	}
	if !plannerHeard {
		t.Error("the planner never got the spoken correction")
	}
}

func wavFileDuration(t *testing.T, path string) (time.Duration, float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return wavStats(t, b)
}

// With no sound server, `vroom run --voice` says so
// once and completes the run text-only.
func TestNoSoundServerRunsTextOnly(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "say hello", "url": s.URL + "/quote.html"}))
	srv.Script("executor",
		modeltest.Step{Match: modeltest.ToolResults(0), Reply: apptest.Call("speak", "text", "hello from the quote desk")},
		modeltest.Step{Match: modeltest.ToolResults(1), Reply: apptest.Done("said hello", true)})
	dir := t.TempDir()
	cmd := vroomCmd(dir, "sk-test", []string{"PULSE_SERVER=unix:" + filepath.Join(dir, "no-such-socket")},
		"run", "--voice", "--base-url", srv.URL, "--model", "executor", "--planner-model", "planner", "say hello")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("vroom run --voice without a sound server: %v\n%s\n%s", err, errb.String(), out.String())
	}
	if n := strings.Count(errb.String(), "running text-only"); n != 1 {
		t.Errorf("the text-only notice appears %d times, want once:\n%s", n, errb.String())
	}
	if !strings.Contains(out.String(), "says: hello from the quote desk") {
		t.Errorf("the message is not in the transcript lines:\n%s", out.String())
	}
	if len(srv.Speeches()) != 0 {
		t.Errorf("%d speech requests without a sound server", len(srv.Speeches()))
	}
	t.Logf("stderr:\n%s", errb.String())
}
