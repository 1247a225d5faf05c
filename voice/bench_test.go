package voice

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"vroom/internal/modeltest"
)

// BenchmarkBargeIn measures Unmute → silence at the speaker sink's monitor
// while a message plays (the target: p50 ≤ 30 ms, p95 ≤ 50 ms). The time of
// silence is when the recorder of the monitor received the period holding
// the first silent sample, so it includes the recorder's own latency: an
// upper bound.
func BenchmarkBargeIn(b *testing.B) {
	needPulse(b)
	srv := modeltest.New(b)
	rec := record(b, speakerSink+".monitor")
	v := newVoice(b, testConfig(srv.URL))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var lat []time.Duration
	b.ResetTimer()
	for range b.N {
		d, _ := bargeIn(b, ctx, v, rec)
		lat = append(lat, d)
		if _, err := v.Mute(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	p50, p95 := percentile(lat, 50), percentile(lat, 95)
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p95), "p95-ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkHandoff measures the gap at the speaker between the end of A's
// message and the first sample of B's, when B says it the moment A's is done
// (as the floor does) and B's audio is ready at once (the target: ≤ 50 ms of
// our own on top of the endpoint's first byte).
func BenchmarkHandoff(b *testing.B) {
	needPulse(b)
	srv := modeltest.New(b)
	rec := record(b, speakerSink+".monitor")
	v := newVoice(b, testConfig(srv.URL))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var gaps []time.Duration
	holes := 0
	b.ResetTimer()
	for range b.N {
		from := rec.len()
		a, err := v.Say(ctx, "agent-1", "tone 440 200ms")
		if err != nil {
			b.Fatal(err)
		}
		<-a.Done()
		p, err := v.Say(ctx, "agent-2", "tone 880 200ms")
		if err != nil {
			b.Fatal(err)
		}
		<-p.Done()
		end, err := rec.waitFor(ctx, silenceFrom(rec.len(), rec.rate/10))
		if err != nil {
			b.Fatal(err)
		}
		s := rec.snapshot()[from:end]
		ga, gb, h, ok := twoTones(s, rec.rate, 660)
		if !ok {
			b.Fatal("recording does not hold a 440 Hz tone then an 880 Hz one")
		}
		holes += h
		gaps = append(gaps, dur(max(0, gb.from-ga.to), rec.rate))
	}
	b.StopTimer()
	b.ReportMetric(ms(percentile(gaps, 50)), "gap-ms")
	b.ReportMetric(ms(percentile(gaps, 95)), "gap-p95-ms")
	b.ReportMetric(ms(slices.Max(gaps)), "gap-max-ms")
	// Silences inside a message: the sound server ran dry (CPU starved).
	b.ReportMetric(float64(holes)/float64(b.N), "holes/op")
	b.ReportMetric(0, "ns/op")
}

func percentile(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkTurns has four speakers take turns as the floor makes them:
// each says its message the moment the previous one is done. One op is
// one 1-second message; -benchtime=120x is two minutes of speech, with
// the default 10 ms playback buffer and with 50 ms. It
// reports the device periods that found no audio while a message was
// streaming (underruns/op: ours), silences of a millisecond or more inside
// a message at the speaker (dropouts/op: the sound server ran dry, which
// on this shared machine means CPU starvation), and handoffs with any
// silence of a millisecond or more between messages.
func BenchmarkTurns(b *testing.B) {
	for _, buf := range []time.Duration{10 * time.Millisecond, 50 * time.Millisecond} {
		b.Run(fmt.Sprintf("buffer=%v", buf), func(b *testing.B) { benchTurns(b, buf) })
	}
}

func benchTurns(b *testing.B, buffer time.Duration) {
	needPulse(b)
	srv := modeltest.New(b)
	rec := record(b, speakerSink+".monitor")
	cfg := testConfig(srv.URL)
	cfg.PlaybackBuffer = buffer
	v := newVoice(b, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	speakers := []string{"agent-1", "agent-2", "agent-3", "agent-4"}
	tones := []int{330, 440, 550, 660}
	from := rec.len()
	under := v.Underruns()
	b.ResetTimer()
	for i := range b.N {
		p, err := v.Say(ctx, speakers[i%4], fmt.Sprintf("tone %d 1s", tones[i%4]))
		if err != nil {
			b.Fatal(err)
		}
		<-p.Done()
		if p.Interrupted() || p.Err() != nil {
			b.Fatalf("message %d: interrupted %v, err %v", i, p.Interrupted(), p.Err())
		}
	}
	b.StopTimer()
	end, err := rec.waitFor(ctx, silenceFrom(rec.len(), rec.rate/10))
	if err != nil {
		b.Fatal(err)
	}
	s := rec.snapshot()[from:end]
	segs := segments(s, rec.rate, rec.rate/1000)
	// A silence between two stretches of the same tone is a dropout;
	// between different tones it is a handoff.
	edge := rec.rate / 50
	var handoffs, dropouts []time.Duration
	for i := 1; i < len(segs); i++ {
		gap := dur(segs[i].from-segs[i-1].to, rec.rate)
		before := pitch(s[max(segs[i-1].from, segs[i-1].to-edge):segs[i-1].to], rec.rate)
		after := pitch(s[segs[i].from:min(segs[i].to, segs[i].from+edge)], rec.rate)
		if within(after, before, 0.1) {
			dropouts = append(dropouts, gap)
		} else {
			handoffs = append(handoffs, gap)
		}
	}
	b.ReportMetric(float64(v.Underruns()-under)/float64(b.N), "underruns/op")
	b.ReportMetric(float64(len(dropouts))/float64(b.N), "dropouts/op")
	b.ReportMetric(float64(len(handoffs))/float64(b.N), "gappy-handoffs/op")
	if len(handoffs) > 0 {
		b.ReportMetric(ms(slices.Max(handoffs)), "handoff-max-ms")
	}
	if len(dropouts) > 0 {
		b.ReportMetric(ms(slices.Max(dropouts)), "dropout-max-ms")
	}
	b.ReportMetric(0, "ns/op")
}
