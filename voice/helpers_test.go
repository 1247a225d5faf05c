package voice

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gen2brain/malgo"

	"vroom/internal/modeltest"
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

// upload is a transcription upload the scripted server recorded, its WAV
// decoded by the package's own reader.
type upload struct {
	Model, FileName, ContentType string
	Rate                         int
	Samples                      []int16
}

// decodeUpload reads the clip of a recorded upload.
func decodeUpload(tb testing.TB, up modeltest.Upload) upload {
	tb.Helper()
	u := upload{Model: up.Fields["model"], FileName: up.Filename, ContentType: up.ContentType}
	if err := readWAV(bytes.NewReader(up.Data), &u); err != nil {
		tb.Fatalf("upload %s: %v", up.Filename, err)
	}
	return u
}

// lastUpload is the newest upload the server recorded; the server records
// it before it answers, so it is there once its transcript arrived.
func lastUpload(tb testing.TB, srv *modeltest.Server) upload {
	tb.Helper()
	ups := srv.Uploads()
	if len(ups) == 0 {
		tb.Fatal("nothing uploaded")
	}
	return decodeUpload(tb, ups[len(ups)-1])
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
