package voice

import (
	"context"
	"testing"
	"time"

	"vroom/internal/modeltest"
)

// The player's bookkeeping (order, Played, Stop, Done) on miniaudio's null
// device, which runs at real-time pace with no sound server: this runs
// everywhere.
func TestPlayerOnNullDevice(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	cfg := testConfig(srv.URL)
	cfg.Backend, cfg.PlaybackDevice, cfg.CaptureDevice = BackendNull, "", ""
	v := newVoice(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	start := time.Now()
	a, err := v.Say(ctx, "agent-1", "tone 440 300ms")
	if err != nil {
		t.Fatal(err)
	}
	b, err := v.Say(ctx, "agent-2", "tone 440 200ms")
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, a, 5*time.Second)
	waitDone(t, b, 5*time.Second)
	// Played one after the other, at real-time pace.
	if el := time.Since(start); el < 450*time.Millisecond {
		t.Errorf("500 ms of queued audio finished in %v", el)
	}
	for _, c := range []struct {
		p    *Playback
		want time.Duration
	}{{a, 300 * time.Millisecond}, {b, 200 * time.Millisecond}} {
		if c.p.Played() != c.want || c.p.Interrupted() || c.p.Err() != nil {
			t.Errorf("%s: played %v (want %v), interrupted %v, err %v", c.p.Speaker(), c.p.Played(), c.want, c.p.Interrupted(), c.p.Err())
		}
	}

	long, err := v.Say(ctx, "agent-1", "tone 440 5s")
	if err != nil {
		t.Fatal(err)
	}
	long.Stop()
	waitDone(t, long, time.Second)
	if !long.Interrupted() || long.Played() >= 5*time.Second {
		t.Errorf("stopped message: interrupted %v, played %v", long.Interrupted(), long.Played())
	}

	// The microphone on the null device hears silence: no speech, no
	// transcript.
	if err := v.Unmute(ctx); err != nil {
		t.Fatal(err)
	}
	clip, err := v.Mute(ctx)
	if err != nil || clip == nil || clip.Speech || clip.Rate != 16000 {
		t.Errorf("null mic clip %+v, err %v", clip, err)
	}
	if clip, err := v.Mute(ctx); clip != nil || err != nil {
		t.Errorf("second Mute: %v, %v", clip, err)
	}
}
