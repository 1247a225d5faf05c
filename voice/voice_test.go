package voice

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// Tests that play into the speaker sink run one at a time: they share it.

func newVoice(tb testing.TB, cfg Config) *Voice {
	tb.Helper()
	v, err := New(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { v.Close() })
	return v
}

func waitDone(tb testing.TB, p *Playback, d time.Duration) {
	tb.Helper()
	select {
	case <-p.Done():
	case <-time.After(d):
		tb.Fatalf("%s's message not done after %v", p.Speaker(), d)
	}
}

// A known signal from the speech endpoint reaches the speaker sink at its
// frequency and length, and two speakers' messages follow each other without
// overlapping.
func TestSpeechReachesSpeaker(t *testing.T) {
	needPulse(t)
	srv := modeltest.New(t)
	rec := record(t, speakerSink+".monitor")
	v := newVoice(t, testConfig(srv.URL))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	from := rec.len()
	a, err := v.Say(ctx, "agent-1", "tone 440 800ms")
	if err != nil {
		t.Fatal(err)
	}
	b, err := v.Say(ctx, "agent-2", "tone 880 600ms")
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, a, 5*time.Second)
	waitDone(t, b, 5*time.Second)
	// Wait for the tail to pass the monitor, then for 200 ms of silence.
	end, err := rec.waitFor(ctx, silenceFrom(rec.len(), rec.rate/5))
	if err != nil {
		t.Fatal(err)
	}
	s := rec.snapshot()[from:end]
	// B follows A within a period, so the two may form one sound: split
	// it where the tone changes.
	ga, gb, holes, ok := twoTones(s, rec.rate, 660)
	if !ok {
		t.Fatalf("recording does not hold a 440 Hz tone then an 880 Hz one")
	}
	t.Logf("gap between the messages at the speaker: %v; %d holes (sound server underruns)", dur(gb.from-ga.to, rec.rate), holes)
	if gb.from < ga.to {
		t.Errorf("B began %v before A ended", dur(ga.to-gb.from, rec.rate))
	}
	for i, c := range []struct {
		g segment
		f float64
		d time.Duration
	}{{ga, 440, 800 * time.Millisecond}, {gb, 880, 600 * time.Millisecond}} {
		d := dur(c.g.sound, rec.rate)
		t.Logf("sound %d: %.1f Hz for %v (over %v), peak %d", i, c.g.freq, d, dur(c.g.to-c.g.from, rec.rate), c.g.peak)
		if !within(c.g.freq, c.f, 0.1) {
			t.Errorf("sound %d at %.1f Hz, want %v ±10%%", i, c.g.freq, c.f)
		}
		if !within(d.Seconds(), c.d.Seconds(), 0.1) {
			t.Errorf("sound %d lasts %v, want %v ±10%%", i, d, c.d)
		}
		// Overlapping tones would add up past one tone's amplitude.
		if float64(c.g.peak) > 0.5*32767*1.1 {
			t.Errorf("sound %d peaks at %d: two messages overlapped", i, c.g.peak)
		}
	}
	for _, p := range []*Playback{a, b} {
		if p.Interrupted() || p.Err() != nil {
			t.Errorf("%s: interrupted %v, err %v", p.Speaker(), p.Interrupted(), p.Err())
		}
	}
	if got := a.Played(); !within(got.Seconds(), 0.8, 0.02) {
		t.Errorf("A played %v, want 800ms", got)
	}
	if got := b.Played(); !within(got.Seconds(), 0.6, 0.02) {
		t.Errorf("B played %v, want 600ms", got)
	}
	checkSpeechRequests(t, srv, a, b)
	if u := v.Underruns(); u != 0 {
		t.Errorf("%d underruns", u)
	}
}

// checkSpeechRequests asserts that every speech request asked for the test
// model as PCM and that the two speakers were given different voices.
func checkSpeechRequests(t *testing.T, srv *modeltest.Server, a, b *Playback) {
	t.Helper()
	reqs := srv.Speeches()
	for _, r := range reqs {
		if r.Model != "tts-test" || r.ResponseFormat != string(openai.SpeechResponseFormatPcm) {
			t.Errorf("speech request model %q format %q", r.Model, r.ResponseFormat)
		}
	}
	if len(reqs) != 2 || reqs[0].Voice == reqs[1].Voice {
		t.Errorf("the two speakers were given voices %+v", reqs)
	}
	if a.Voice() == b.Voice() {
		t.Errorf("both speakers speak as %s", a.Voice())
	}
}

// Playback starts on the first chunk: the endpoint holds the rest of the
// body back until the speaker has been heard.
func TestSayPlaysAsItStreams(t *testing.T) {
	needPulse(t)
	srv := modeltest.New(t)
	heard := make(chan struct{})
	srv.HoldSpeech(300*time.Millisecond, heard)
	rec := record(t, speakerSink+".monitor")
	v := newVoice(t, testConfig(srv.URL))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	from := rec.len()
	p, err := v.Say(ctx, "agent-1", "tone 500 1s")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.waitFor(ctx, soundFrom(from)); err != nil {
		t.Fatalf("nothing heard before the body ended: %v", err)
	}
	close(heard)
	waitDone(t, p, 5*time.Second)
	if got := p.Played(); !within(got.Seconds(), 1, 0.02) {
		t.Errorf("played %v of a 1 s stream", got)
	}
}

// While a message plays, Unmute silences the speaker within 50 ms.
func TestBargeIn(t *testing.T) {
	needPulse(t)
	srv := modeltest.New(t)
	rec := record(t, speakerSink+".monitor")
	v := newVoice(t, testConfig(srv.URL))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	lat, p := bargeIn(t, ctx, v, rec)
	t.Logf("unmute → silence at the speaker monitor: %v", lat)
	if lat > 50*time.Millisecond {
		t.Errorf("speaker silent %v after Unmute, want ≤ 50ms", lat)
	}
	if !p.Interrupted() {
		t.Error("barged-in message not marked interrupted")
	}
	if got := p.Played(); got < 100*time.Millisecond || got > 2*time.Second {
		t.Errorf("interrupted message played %v", got)
	}
	if !v.Listening() {
		t.Error("microphone not open after Unmute")
	}
	if _, err := v.Say(ctx, "agent-2", "tone 440 100ms"); !errors.Is(err, ErrMicOpen) {
		t.Errorf("Say while unmuted: %v, want ErrMicOpen", err)
	}
	if _, err := v.Mute(ctx); err != nil {
		t.Fatal(err)
	}
	q, err := v.Say(ctx, "agent-2", "tone 440 100ms")
	if err != nil {
		t.Fatalf("Say after Mute: %v", err)
	}
	waitDone(t, q, 5*time.Second)
	if q.Interrupted() {
		t.Error("message after mute interrupted")
	}
}

// bargeIn plays a long tone, waits until it is heard, unmutes and returns
// the time from Unmute to silence at the monitor. The mic stays open.
func bargeIn(tb testing.TB, ctx context.Context, v *Voice, rec *recorder) (time.Duration, *Playback) {
	tb.Helper()
	from := rec.len()
	p, err := v.Say(ctx, "agent-1", "tone 440 3s")
	if err != nil {
		tb.Fatal(err)
	}
	on, err := rec.waitFor(ctx, soundFrom(from))
	if err != nil {
		tb.Fatal(err)
	}
	// Let it play for real, so the sound server's buffers are full.
	if _, err := rec.waitFor(ctx, func(s []int16) (int, bool) { return 0, len(s) > on+rec.rate/5 }); err != nil {
		tb.Fatal(err)
	}
	t0, at := time.Now(), rec.len()
	if err := v.Unmute(ctx); err != nil {
		tb.Fatal(err)
	}
	// The silence must last (200 ms) so that the sound server running
	// dry for a moment on a loaded machine is not taken for it.
	off, err := rec.waitFor(ctx, silenceFrom(at, rec.rate/5))
	if err != nil {
		tb.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-ctx.Done():
		tb.Fatal("interrupted message never done")
	}
	return rec.arrival(off).Sub(t0), p
}

// Speech played into the microphone while unmuted is uploaded as WAV of the
// right length with speech in it, and the text comes back.
func TestMicSpeechTranscribed(t *testing.T) {
	needPulse(t)
	path, clipLen := espeakClip(t, "No, take the most recent repository instead.")
	srv := modeltest.New(t)
	srv.Transcribe("no, take the most recent repository instead")
	v := newVoice(t, testConfig(srv.URL))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := v.Unmute(ctx); err != nil {
		t.Fatal(err)
	}
	paplay(t, ctx, path)
	clip, err := v.Mute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if clip == nil || !clip.Speech {
		t.Fatalf("clip %v: no speech detected", clip)
	}
	select {
	case tr := <-v.Transcripts():
		if tr.Err != nil || tr.Text != "no, take the most recent repository instead" {
			t.Errorf("transcript %q, err %v", tr.Text, tr.Err)
		}
	case <-ctx.Done():
		t.Fatal("no transcript")
	}
	checkUpload(t, lastUpload(t, srv), clipLen)
}

func checkUpload(t *testing.T, u upload, clipLen time.Duration) {
	t.Helper()
	if u.Model != "stt-test" || !strings.HasSuffix(u.FileName, ".wav") || u.Rate != 16000 {
		t.Errorf("upload: model %q, file %q, rate %d", u.Model, u.FileName, u.Rate)
	}
	speech := speechTime(u.Samples, u.Rate, 0.02)
	t.Logf("espeak clip holds %v of speech; the upload of %v holds %v (from first to last: %v)",
		clipLen, dur(len(u.Samples), u.Rate), speech, speechSpan(u.Samples, u.Rate, 0.02))
	if !within(speech.Seconds(), clipLen.Seconds(), 0.1) {
		t.Errorf("upload holds %v of speech, the clip %v", speech, clipLen)
	}
	if got := dur(len(u.Samples), u.Rate); got < clipLen || got > clipLen+3*time.Second {
		t.Errorf("uploaded %v for a %v clip", got, clipLen)
	}
	var peak float64
	for i := 0; i+160 <= len(u.Samples); i += 160 {
		peak = max(peak, rms(u.Samples[i:i+160]))
	}
	if peak < 0.05 {
		t.Errorf("loudest 10 ms of the upload has RMS %.3f: no speech energy", peak)
	}
}

// With an open mic the utterance ends by itself, 500 ms after the speech.
func TestOpenMicTranscribesWithoutMute(t *testing.T) {
	needPulse(t)
	path, clipLen := espeakClip(t, "Stop, that is the wrong page.")
	srv := modeltest.New(t)
	srv.Transcribe("stop, that is the wrong page")
	cfg := testConfig(srv.URL)
	cfg.OpenMic = true
	v := newVoice(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := v.Unmute(ctx); err != nil {
		t.Fatal(err)
	}
	defer v.Mute(ctx)
	paplay(t, ctx, path)
	played := time.Now()
	select {
	case tr := <-v.Transcripts():
		t.Logf("transcript %v after the clip ended", time.Since(played))
		if tr.Err != nil || tr.Text != "stop, that is the wrong page" {
			t.Errorf("transcript %q, err %v", tr.Text, tr.Err)
		}
		checkUpload(t, lastUpload(t, srv), clipLen)
	case <-ctx.Done():
		t.Fatal("open mic delivered no transcript")
	}
	if !v.Listening() {
		t.Error("open mic closed itself")
	}
}

// With no speech endpoint, espeak-ng speaks, in a different voice for each
// speaker, and it reaches the speaker sink.
func TestOfflineSpeech(t *testing.T) {
	needPulse(t)
	need(t, "espeak-ng")
	rec := record(t, speakerSink+".monitor")
	cfg := testConfig("")
	cfg.APIKey = ""
	v := newVoice(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	from := rec.len()
	a, err := v.Say(ctx, "agent-1", "Hello.")
	if err != nil {
		t.Fatal(err)
	}
	b, err := v.Say(ctx, "agent-2", "Hello there.")
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, a, 10*time.Second)
	waitDone(t, b, 10*time.Second)
	if a.Voice() == b.Voice() {
		t.Errorf("both speakers speak as %s", a.Voice())
	}
	if _, err := rec.waitFor(ctx, soundFrom(from)); err != nil {
		t.Fatal("espeak-ng speech never reached the speaker")
	}
	for _, p := range []*Playback{a, b} {
		if p.Played() < 300*time.Millisecond || p.Interrupted() || p.Err() != nil {
			t.Errorf("%s: played %v, interrupted %v, err %v", p.Speaker(), p.Played(), p.Interrupted(), p.Err())
		}
	}
	if _, err := v.Transcribe(ctx, &Clip{Rate: 16000, Samples: make([]int16, 160)}); !errors.Is(err, ErrNoTranscriber) {
		t.Errorf("offline Transcribe: %v, want ErrNoTranscriber", err)
	}
}

// Stop, and cancelling Say's context, silence one message and let the
// next one play.
func TestStopOneMessage(t *testing.T) {
	needPulse(t)
	srv := modeltest.New(t)
	rec := record(t, speakerSink+".monitor")
	v := newVoice(t, testConfig(srv.URL))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	from := rec.len()
	actx, acancel := context.WithCancel(ctx)
	a, err := v.Say(actx, "agent-1", "tone 440 3s")
	if err != nil {
		t.Fatal(err)
	}
	b, err := v.Say(ctx, "agent-2", "tone 880 300ms")
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.Say(ctx, "agent-3", "tone 660 300ms")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.waitFor(ctx, soundFrom(from)); err != nil {
		t.Fatal(err)
	}
	c.Stop() // still queued: never plays
	acancel()
	waitDone(t, a, 2*time.Second)
	waitDone(t, b, 5*time.Second)
	waitDone(t, c, time.Second)
	if !a.Interrupted() || a.Played() > 2*time.Second {
		t.Errorf("cancelled message: interrupted %v, played %v", a.Interrupted(), a.Played())
	}
	if b.Interrupted() || !within(b.Played().Seconds(), 0.3, 0.05) {
		t.Errorf("next message: interrupted %v, played %v", b.Interrupted(), b.Played())
	}
	if !c.Interrupted() || c.Played() != 0 {
		t.Errorf("stopped queued message: interrupted %v, played %v", c.Interrupted(), c.Played())
	}
	end, err := rec.waitFor(ctx, silenceFrom(rec.len(), rec.rate/5))
	if err != nil {
		t.Fatal(err)
	}
	ga, gb, _, ok := twoTones(rec.snapshot()[from:end], rec.rate, 660)
	if !ok || gb.from < ga.to || !within(gb.freq, 880, 0.1) || !within(dur(gb.sound, rec.rate).Seconds(), 0.3, 0.1) {
		t.Errorf("heard %+v then %+v, want the cut 440 Hz tone then 300 ms at 880 Hz", ga, gb)
	}
}

// With no sound server New fails at once with ErrNoAudio, without crashing
// or hanging. The check runs in a child process whose PULSE_SERVER points at
// a socket that does not exist.
func TestNoSoundServer(t *testing.T) {
	if os.Getenv("VOICE_NO_AUDIO_CHILD") == "1" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start := time.Now()
		v, err := New(ctx, Config{})
		if !errors.Is(err, ErrNoAudio) {
			fmt.Printf("FAIL New: %v, want ErrNoAudio\n", err)
			if v != nil {
				v.Close()
			}
			os.Exit(1)
		}
		fmt.Printf("OK %v: %v\n", time.Since(start).Round(time.Millisecond), err)
		os.Exit(0)
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestNoSoundServer$", "-test.count=1")
	cmd.Env = append(os.Environ(),
		"VOICE_NO_AUDIO_CHILD=1",
		"PULSE_SERVER=unix:"+t.TempDir()+"/no-such-socket",
		"ALSA_CONFIG_PATH=/dev/null", // no ALSA fallback to a real card either
	)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Logf("child: %s", strings.TrimSpace(string(out)))
	if err != nil || !strings.HasPrefix(string(out), "OK") {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
}

// When the sound server dies mid-message, the message ends with
// ErrNoAudio instead of holding the floor forever, and nothing crashes.
// The child process talks to a private PulseAudio the test then kills.
func TestSoundServerDies(t *testing.T) {
	if os.Getenv("VOICE_FAULT_CHILD") == "1" {
		dyingServerChild()
		return
	}
	t.Parallel()
	server, kill := testenv.PrivatePulse(t, "dying")
	runFaultChild(t, "^TestSoundServerDies$", server, kill)
}

func dyingServerChild() {
	ctx, cancel, v := childVoice(20 * time.Second)
	defer cancel()
	defer v.Close()
	p, err := v.Say(ctx, "agent-1", "tone 440 10s")
	if err != nil {
		fmt.Printf("FAIL Say: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("PLAYING")
	select {
	case <-p.Done():
		fmt.Printf("done after %v played: err %v\n", p.Played(), p.Err())
		if !errors.Is(p.Err(), ErrNoAudio) {
			fmt.Println("FAIL want ErrNoAudio")
		}
	case <-time.After(8 * time.Second):
		fmt.Println("FAIL message never ended after the server died")
	}
	if _, err := v.Say(ctx, "agent-1", "tone 440 1s"); !errors.Is(err, ErrNoAudio) {
		fmt.Printf("FAIL Say after the server died: %v, want ErrNoAudio\n", err)
	}
	os.Exit(0)
}
