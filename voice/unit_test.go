package voice

import (
	"bytes"
	"io"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"vroom/internal/modeltest"
)

func TestRingWrapsAndNeverAllocates(t *testing.T) {
	q := newRing(100) // rounds to 128
	in := make([]int16, 48)
	out := make([]int16, 48)
	next, want := int16(0), int16(0)
	allocs := testing.AllocsPerRun(1000, func() {
		for i := range in {
			in[i] = next
			next++
		}
		if n := q.Write(in); n != len(in) {
			t.Fatalf("wrote %d of %d", n, len(in))
		}
		if n := q.Read(out); n != len(out) {
			t.Fatalf("read %d of %d", n, len(out))
		}
		for _, v := range out {
			if v != want {
				t.Fatalf("read %d, want %d", v, want)
			}
			want++
		}
	})
	if allocs != 0 {
		t.Errorf("ring allocates %v times per write+read", allocs)
	}
	if n := q.Write(make([]int16, 200)); n != 128 {
		t.Errorf("full ring took %d, want 128", n)
	}
	if n := q.Write(in); n != 0 {
		t.Errorf("write to a full ring took %d", n)
	}
}

func TestRingConcurrent(t *testing.T) {
	t.Parallel()
	q := newRing(64)
	const total = 200000
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]int16, 37)
		v := 0
		for v < total {
			n := min(len(buf), total-v)
			for i := range n {
				buf[i] = int16(v + i)
			}
			w := q.Write(buf[:n])
			v += w
		}
	}()
	buf := make([]int16, 23)
	got := 0
	for got < total {
		n := q.Read(buf)
		for i := range n {
			if buf[i] != int16(got+i) {
				t.Fatalf("sample %d = %d", got+i, buf[i])
			}
		}
		got += n
	}
	wg.Wait()
}

// The device callbacks are what run on the audio thread: they must not
// allocate, whether there is audio to copy or not.
func TestCallbacksDoNotAllocate(t *testing.T) {
	pl := newPlayer(nil, "", 24000, 10*time.Millisecond)
	out := make([]byte, 480)
	src := modeltest.Tone(440, 100*time.Millisecond, 24000, 0.5)
	pl.expect.Store(true)
	if a := testing.AllocsPerRun(200, func() {
		pl.ring.Write(src[:120])
		pl.data(out, nil, 240) // half full: copy, pad, count an underrun
		<-pl.wake
	}); a != 0 {
		t.Errorf("playback callback allocates %v times", a)
	}
	if pl.underruns.Load() == 0 {
		t.Error("short periods while streaming were not counted as underruns")
	}
	m := &mic{ring: newRing(16000), wake: make(chan struct{}, 1)}
	in := modeltest.PCMBytes(src[:160])
	if a := testing.AllocsPerRun(200, func() {
		m.data(nil, in, 160)
		m.ring.Discard()
	}); a != 0 {
		t.Errorf("capture callback allocates %v times", a)
	}
	if m.level.Load() == 0 {
		t.Error("capture callback published no level")
	}
}

func TestVADHangover(t *testing.T) {
	t.Parallel()
	const rate = 16000
	d := vad{threshold: 0.02, minSpeech: rate / 10, hangover: rate / 2}
	frame := rate / 100
	var sig []int16
	sig = append(sig, make([]int16, rate*3/10)...)                             // 300 ms silence
	sig = append(sig, modeltest.Tone(200, 700*time.Millisecond, rate, 0.3)...) // speech
	sig = append(sig, make([]int16, rate*4/10)...)                             // 400 ms pause: shorter than the hangover
	sig = append(sig, modeltest.Tone(300, 500*time.Millisecond, rate, 0.3)...) // speech again
	sig = append(sig, make([]int16, rate*3/2)...)                              // 1.5 s silence
	sig = append(sig, modeltest.Tone(2000, 50*time.Millisecond, rate, 0.5)...) // a 50 ms click: not speech
	sig = append(sig, make([]int16, rate)...)                                  // 1 s silence
	speechEnd := rate*3/10 + rate*7/10 + rate*4/10 + rate/2                    // 1.9 s
	var starts, ends []int
	for i := 0; i+frame <= len(sig); i += frame {
		switch d.push(sig[i : i+frame]) {
		case vadStart:
			starts = append(starts, i+frame)
		case vadEnd:
			ends = append(ends, i+frame)
		}
	}
	if len(starts) != 1 || len(ends) != 1 {
		t.Fatalf("starts %v, ends %v: want one utterance", starts, ends)
	}
	if want := rate*3/10 + rate/10; starts[0] != want {
		t.Errorf("speech started at %v, want %v (after minSpeech)", dur(starts[0], rate), dur(want, rate))
	}
	if want := speechEnd + rate/2; ends[0] != want {
		t.Errorf("utterance ended at %v, want %v (speech end + 500 ms)", dur(ends[0], rate), dur(want, rate))
	}
}

// In open-mic mode the microphone cuts each utterance at its end and keeps
// only a preroll of silence between them.
func TestOpenMicCutsUtterances(t *testing.T) {
	t.Parallel()
	const rate = 16000
	var got []*Clip
	m := &mic{
		rate: rate, frame: rate / 100, openMic: true,
		ring: newRing(rate * 2), scratch: make([]int16, 4096),
		vad:  vad{threshold: 0.02, minSpeech: rate / 10, hangover: rate / 2},
		emit: func(c *Clip) { got = append(got, c) },
	}
	feed := func(s []int16) {
		for len(s) > 0 {
			n := m.ring.Write(s)
			s = s[n:]
			m.drain()
		}
	}
	feed(make([]int16, 5*rate))
	if len(m.samples) > rate {
		t.Errorf("5 s of silence kept %v of audio", dur(len(m.samples), rate))
	}
	feed(modeltest.Tone(200, time.Second, rate, 0.3))
	feed(make([]int16, rate))
	feed(modeltest.Tone(300, 600*time.Millisecond, rate, 0.3))
	feed(make([]int16, rate))
	if len(got) != 2 {
		t.Fatalf("got %d utterances, want 2", len(got))
	}
	for i, want := range []time.Duration{time.Second, 600 * time.Millisecond} {
		if s := speechSpan(got[i].Samples, rate, 0.02); !within(s.Seconds(), want.Seconds(), 0.05) {
			t.Errorf("utterance %d holds %v of speech, want %v", i, s, want)
		}
		if d := got[i].Duration(); d > want+900*time.Millisecond {
			t.Errorf("utterance %d lasts %v: more than speech+preroll+hangover", i, d)
		}
	}
}

func TestVoiceAssignment(t *testing.T) {
	t.Parallel()
	v := &Voice{cfg: Config{SpeakerVoices: map[string]string{"planner": "sage"}}, client: nil}
	v.cfg.defaults()
	v.online.n, v.offline.n = len(v.cfg.Voices), len(v.cfg.OfflineVoices)
	v.client = newClientForTest()
	seen := map[string]string{}
	for _, sp := range []string{"a1", "a2", "a3", "a4", "a1", "a2"} {
		got := v.VoiceFor(sp)
		if prev, ok := seen[sp]; ok && prev != got {
			t.Errorf("%s changed voice %s → %s", sp, prev, got)
		}
		seen[sp] = got
	}
	distinct := map[string]bool{}
	for _, vo := range seen {
		distinct[vo] = true
	}
	if len(distinct) != 4 {
		t.Errorf("four speakers got voices %v", seen)
	}
	if got := v.VoiceFor("planner"); got != "sage" {
		t.Errorf("pinned speaker got %q", got)
	}
	// Offline, the espeak-ng voices are handed out the same way.
	v.client, v.espeak = nil, "/usr/bin/espeak-ng"
	a, b := v.VoiceFor("a1"), v.VoiceFor("a2")
	if a == b || a == "" || v.VoiceFor("a1") != a {
		t.Errorf("offline voices a1=%q a2=%q", a, b)
	}
	// More speakers than voices wrap round in order.
	w := &assigner{n: 3}
	for i, want := range []int{0, 1, 2, 0, 1} {
		if got := w.index(string(rune('a' + i))); got != want {
			t.Errorf("speaker %d got voice %d, want %d", i, got, want)
		}
	}
}

func TestPCMReaderResamplesAndReadsWAV(t *testing.T) {
	t.Parallel()
	c := &Clip{Samples: modeltest.Tone(440, time.Second, 22050, 0.5), Rate: 22050}
	// Odd-sized reads split samples across chunks.
	r, err := newPCMReader(io.NopCloser(&oddReader{r: bytes.NewReader(c.WAV())}), 1, 24000)
	if err != nil {
		t.Fatal(err)
	}
	var out []int16
	for {
		s, err := r.Next()
		out = append(out, s...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !within(float64(len(out)), 24000, 0.01) {
		t.Errorf("1 s at 22050 Hz became %d samples at 24000 Hz", len(out))
	}
	if f := frequency(out, 24000); !within(f, 440, 0.02) {
		t.Errorf("frequency %v after resampling", f)
	}
}

// oddReader returns 7 bytes at a time.
type oddReader struct{ r io.Reader }

func (o *oddReader) Read(p []byte) (int, error) { return o.r.Read(p[:min(len(p), 7)]) }

func newClientForTest() *openai.Client { return openai.NewClient("test") }
