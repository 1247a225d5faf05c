package voice

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gen2brain/malgo"
	openai "github.com/sashabaranov/go-openai"

	"vroom/internal/testenv"
)

// Sinks the test environment provides (build/testenv.sh sets them up).
const (
	speakerSink = "vroom_speaker"
	micFeedSink = "vroom_micfeed"
)

// needPulse skips (or, in CI, fails) when the test sound server is absent.
func needPulse(tb testing.TB) {
	tb.Helper()
	a, err := openAudio(BackendPulse)
	if err == nil {
		defer a.close()
		_, err = a.find(malgo.Capture, speakerSink+".monitor")
		if err == nil {
			_, err = a.find(malgo.Capture, micFeedSink+".monitor")
		}
	}
	if err != nil {
		testenv.Missing(tb, fmt.Sprintf("PulseAudio with sinks %s and %s (%v)", speakerSink, micFeedSink, err))
	}
}

// need skips (or fails in CI) when a program is missing.
func need(tb testing.TB, prog string) string {
	tb.Helper()
	p, err := exec.LookPath(prog)
	if err != nil {
		testenv.Missing(tb, prog)
	}
	return p
}

// tone is amp·sin(2πf·t) at rate for d.
func tone(f float64, d time.Duration, rate int, amp float64) []int16 {
	n := int(d * time.Duration(rate) / time.Second)
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(amp * 32767 * math.Sin(2*math.Pi*f*float64(i)/float64(rate)))
	}
	return s
}

func le(s []int16) []byte {
	b := make([]byte, 2*len(s))
	for i, v := range s {
		b[2*i], b[2*i+1] = byte(v), byte(uint16(v)>>8)
	}
	return b
}

// speechServer speaks the OpenAI wire format for /v1/audio/speech and
// /v1/audio/transcriptions.
type speechServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []openai.CreateSpeechRequest

	// speak writes the body for a speech request; default: a tone
	// parsed from the input "tone <hz> <duration>".
	speak func(ctx context.Context, w http.ResponseWriter, req openai.CreateSpeechRequest)
	// transcribe answers a transcription upload.
	transcribe func(u upload) (string, error)
}

// upload is what the transcription endpoint received.
type upload struct {
	Model, FileName, ContentType string
	Rate                         int
	Samples                      []int16
}

func newSpeechServer(t testing.TB) *speechServer {
	s := &speechServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/audio/speech", func(w http.ResponseWriter, r *http.Request) {
		var req openai.CreateSpeechRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.requests = append(s.requests, req)
		speak := s.speak
		s.mu.Unlock()
		w.Header().Set("Content-Type", "audio/pcm")
		if speak != nil {
			speak(r.Context(), w, req)
			return
		}
		var f float64
		var ds string
		_, err := fmt.Sscanf(req.Input, "tone %g %s", &f, &ds)
		d, err2 := time.ParseDuration(ds)
		if err != nil || err2 != nil {
			http.Error(w, "want input 'tone <hz> <duration>'", http.StatusBadRequest)
			return
		}
		writeChunked(w, tone(f, d, 24000, 0.5), 24000/50)
	})
	mux.HandleFunc("POST /v1/audio/transcriptions", func(w http.ResponseWriter, r *http.Request) {
		u, err := readUpload(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		tr := s.transcribe
		s.mu.Unlock()
		if tr == nil {
			http.Error(w, "no transcriber", http.StatusInternalServerError)
			return
		}
		text, err := tr(u)
		if err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"text": text})
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *speechServer) url() string { return s.URL + "/v1" }

func (s *speechServer) voices() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var v []string
	for _, r := range s.requests {
		v = append(v, string(r.Voice))
	}
	return v
}

// writeChunked streams samples in chunks, flushing each, as a speech
// endpoint does while it synthesizes.
func writeChunked(w http.ResponseWriter, s []int16, chunk int) {
	f := w.(http.Flusher)
	for len(s) > 0 {
		n := min(chunk, len(s))
		if _, err := w.Write(le(s[:n])); err != nil {
			return
		}
		f.Flush()
		s = s[n:]
	}
}

func readUpload(r *http.Request) (upload, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return upload{}, err
	}
	var u upload
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return u, err
		}
		switch p.FormName() {
		case "model":
			b, _ := io.ReadAll(p)
			u.Model = string(b)
		case "file":
			u.FileName, u.ContentType = p.FileName(), p.Header.Get("Content-Type")
			if err := readWAV(p, &u); err != nil {
				return u, err
			}
		}
		p.Close()
	}
	if u.Samples == nil {
		return u, fmt.Errorf("no file part")
	}
	return u, nil
}

func readWAV(r io.Reader, u *upload) error {
	rate, err := wavHeader(r)
	if err != nil {
		return err
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	u.Rate = rate
	u.Samples = make([]int16, len(b)/2)
	for i := range u.Samples {
		u.Samples[i] = int16(uint16(b[2*i]) | uint16(b[2*i+1])<<8)
	}
	return nil
}

// recorder captures a sink's monitor, as a person at the speaker would
// hear it, stamping each period with the time it arrived.
type recorder struct {
	rate int
	a    *audio
	dev  *device
	note chan struct{}

	mu      sync.Mutex
	samples []int16
	stamps  []stamp
}

type stamp struct {
	n int // samples received up to and including this period
	t time.Time
}

func record(tb testing.TB, monitor string) *recorder {
	tb.Helper()
	a, err := openAudio(BackendPulse)
	if err != nil {
		tb.Fatal(err)
	}
	r := &recorder{rate: 24000, a: a, note: make(chan struct{}, 1)}
	r.samples = make([]int16, 0, 24000*30)
	r.dev, err = a.open(deviceSpec{kind: malgo.Capture, name: monitor, rate: r.rate, period: 5 * time.Millisecond, data: r.data})
	if err != nil {
		a.close()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		r.dev.close()
		a.close()
	})
	return r
}

// data is test code: it may lock and allocate.
func (r *recorder) data(_, in []byte, _ uint32) {
	now := time.Now()
	r.mu.Lock()
	r.samples = append(r.samples, int16s(in)...)
	r.stamps = append(r.stamps, stamp{len(r.samples), now})
	r.mu.Unlock()
	select {
	case r.note <- struct{}{}:
	default:
	}
}

func (r *recorder) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.samples)
}

// snapshot returns the samples so far.
func (r *recorder) snapshot() []int16 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int16(nil), r.samples...)
}

// arrival is when the period holding sample i reached the recorder: an
// upper bound on when that sample passed the monitor (the sink renders
// ahead and rewinds on a cork, so finer estimates are not trustworthy).
func (r *recorder) arrival(i int) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.stamps {
		if s.n > i {
			return s.t
		}
	}
	return time.Time{}
}

const loud = 1000 // |sample| above this is sound; the null sink is exactly 0 when silent

// waitFor waits until cond holds over the samples, polling as periods arrive.
func (r *recorder) waitFor(ctx context.Context, cond func(s []int16) (int, bool)) (int, error) {
	for {
		r.mu.Lock()
		i, ok := cond(r.samples)
		r.mu.Unlock()
		if ok {
			return i, nil
		}
		select {
		case <-r.note:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// soundFrom is the first loud sample at or after from.
func soundFrom(from int) func(s []int16) (int, bool) {
	return func(s []int16) (int, bool) {
		for i := from; i < len(s); i++ {
			if s[i] > loud || s[i] < -loud {
				return i, true
			}
		}
		return 0, false
	}
}

// silenceFrom is the first sample at or after from that starts a run of
// quiet samples at least run long.
func silenceFrom(from, run int) func(s []int16) (int, bool) {
	return func(s []int16) (int, bool) {
		start, n := -1, 0
		for i := from; i < len(s); i++ {
			if s[i] > loud || s[i] < -loud {
				start, n = -1, 0
				continue
			}
			if start < 0 {
				start = i
			}
			if n++; n >= run {
				return start, true
			}
		}
		return 0, false
	}
}

// segment is a stretch of sound in a recording.
type segment struct {
	from, to int // sample indexes, to exclusive
	sound    int // samples of sound: to-from less the holes
	peak     int
	freq     float64 // Hz while sounding
}

// segments splits s into sounds separated by at least gap quiet samples.
func segments(s []int16, rate, gap int) []segment {
	var out []segment
	in := false
	var cur segment
	last := 0
	for i, v := range s {
		if v > loud || v < -loud {
			if !in {
				cur, in = segment{from: i}, true
			}
			last = i
			cur.peak = max(cur.peak, abs(int(v)))
			continue
		}
		if in && i-last > gap {
			cur.to = last + 1
			out = append(out, cur)
			in = false
		}
	}
	if in {
		cur.to = last + 1
		out = append(out, cur)
	}
	for i := range out {
		out[i].freq = frequency(s[out[i].from:out[i].to], rate)
	}
	return out
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// pitch is the frequency of the median period between upward zero
// crossings: holes add stray crossings that skew a plain count.
func pitch(s []int16, rate int) float64 {
	var periods []int
	last := -1
	for i := 1; i < len(s); i++ {
		if s[i-1] < 0 && s[i] >= 0 {
			if last >= 0 {
				periods = append(periods, i-last)
			}
			last = i
		}
	}
	if len(periods) == 0 {
		return 0
	}
	slices.Sort(periods)
	return float64(rate) / float64(periods[len(periods)/2])
}

// frequency counts upward zero crossings.
func frequency(s []int16, rate int) float64 {
	n := 0
	for i := 1; i < len(s); i++ {
		if s[i-1] < 0 && s[i] >= 0 {
			n++
		}
	}
	return float64(n) * float64(rate) / float64(len(s))
}

func dur(samples, rate int) time.Duration {
	return time.Duration(samples) * time.Second / time.Duration(rate)
}

func within(got, want, tol float64) bool { return math.Abs(got-want) <= tol*want }

// espeakClip writes a spoken clip for the microphone tests and returns
// its path and how much of it is speech.
func espeakClip(tb testing.TB, text string) (path string, d time.Duration) {
	tb.Helper()
	prog := need(tb, "espeak-ng")
	path = filepath.Join(tb.TempDir(), "clip.wav")
	if out, err := exec.Command(prog, "-w", path, text).CombinedOutput(); err != nil {
		tb.Fatalf("espeak-ng: %v: %s", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var u upload
	if err := readWAV(f, &u); err != nil {
		tb.Fatal(err)
	}
	return path, speechTime(u.Samples, u.Rate, 0.02)
}

// speechTime counts the 10 ms frames above level. Unlike the span from
// first to last, it does not grow when the sound server drops out.
func speechTime(s []int16, rate int, level float64) time.Duration {
	f := rate / 100
	n := 0
	for i := 0; i+f <= len(s); i += f {
		if rms(s[i:i+f]) >= level {
			n++
		}
	}
	return time.Duration(n) * 10 * time.Millisecond
}

// speechSpan is the stretch from the first to the last 10 ms frame above
// level.
func speechSpan(s []int16, rate int, level float64) time.Duration {
	f := rate / 100
	first, last := -1, -1
	for i := 0; i+f <= len(s); i += f {
		if rms(s[i:i+f]) >= level {
			if first < 0 {
				first = i
			}
			last = i + f
		}
	}
	if first < 0 {
		return 0
	}
	return dur(last-first, rate)
}

func testConfig(url string) Config {
	return Config{
		BaseURL:        url,
		APIKey:         "test",
		TTSModel:       "tts-test",
		STTModel:       "stt-test",
		Backend:        BackendPulse,
		PlaybackDevice: speakerSink,
		CaptureDevice:  micFeedSink + ".monitor",
	}
}

func paplay(tb testing.TB, ctx context.Context, path string) {
	tb.Helper()
	prog := need(tb, "paplay")
	if out, err := exec.CommandContext(ctx, prog, "-d", micFeedSink, path).CombinedOutput(); err != nil {
		tb.Fatalf("paplay: %v: %s", err, strings.TrimSpace(string(out)))
	}
}

// twoTones finds a tone followed by a higher one (above f) in s: the
// first from its first loud sample to its last before the pitch changes,
// the second from its first loud sample after that to the last. holes
// counts silences of a millisecond or more inside either: the sound server
// running dry. On a loaded machine it renders silence for a late stream
// and then plays on where it stopped, so a hole delays audio without
// losing any, and segment.sound is the tone's true length.
func twoTones(s []int16, rate int, f float64) (a, b segment, holes int, ok bool) {
	isLoud := func(v int16) bool { return v > loud || v < -loud }
	first, lastLoud := -1, -1
	for i, v := range s {
		if isLoud(v) {
			if first < 0 {
				first = i
			}
			lastLoud = i
		}
	}
	if first < 0 {
		return a, b, 0, false
	}
	// A hole can shift the phase and fake one short period, so the change
	// is where five short periods in a row begin.
	var ups []int
	for i := first + 1; i <= lastLoud; i++ {
		if s[i-1] < 0 && s[i] >= 0 {
			ups = append(ups, i)
		}
	}
	cut := -1
	for i := 0; i+5 < len(ups) && cut < 0; i++ {
		cut = ups[i]
		for j := i; j < i+5; j++ {
			if float64(ups[j+1]-ups[j]) >= float64(rate)/f {
				cut = -1
				break
			}
		}
	}
	if cut < 0 {
		return a, b, 0, false
	}
	a.from, b.to = first, lastLoud+1
	for a.to = cut; a.to > a.from && !isLoud(s[a.to-1]); a.to-- {
	}
	for b.from = cut; b.from < b.to && !isLoud(s[b.from]); b.from++ {
	}
	for _, g := range []*segment{&a, &b} {
		run, quiet := 0, 0
		for i, v := range append(s[g.from:g.to:g.to], loud+1) {
			if i < g.to-g.from {
				g.peak = max(g.peak, abs(int(v)))
			}
			// A tone near its zero crossing is quiet for a sample or two;
			// a millisecond of quiet is a hole.
			if !isLoud(v) {
				run++
				continue
			}
			if run >= rate/1000 {
				holes++
				quiet += run
			}
			run = 0
		}
		g.sound = g.to - g.from - quiet
		g.freq = pitch(s[g.from:g.to], rate)
	}
	return a, b, holes, true
}
