package app

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"vroom/agents"
)

// SetAgentMuted mutes or unmutes agent's voice for the rest of the active
// run. A muted agent's messages still appear in the transcript and hold
// the floor for their reading time; they are only not spoken, and no
// speech is generated for them.
func (a *App) SetAgentMuted(agent string, muted bool) error {
	r, err := a.runningRun()
	if err != nil {
		return err
	}
	known := agent == agents.PlannerName || slices.ContainsFunc(r.run.Procs(), func(p agents.ProcInfo) bool { return p.Agent == agent })
	if !known {
		return fmt.Errorf("mute %q: %w", agent, ErrNoAgent)
	}
	room := r.run.Room()
	room.SetMuted(agent, muted)
	emit(a, EventMuted, MutedView{RunID: r.id, Agents: room.Muted()})
	return nil
}

// Unmute gives the person the floor: any agent speaking is cut off at once
// and the microphone opens; its level reaches the UI as EventMicLevel
// until Mute. Mute closes it; what was said reaches every agent as a
// correction.
func (a *App) Unmute() error {
	r, err := a.runningRun()
	if err != nil {
		return err
	}
	r.run.Room().UserStarts()
	if r.voice == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(a.context(), micWait)
	defer cancel()
	if err := r.voice.Unmute(ctx); err != nil {
		r.run.Room().UserStops()
		return fmt.Errorf("unmute: %w", err)
	}
	tick := time.NewTicker(MicLevelEvery)
	r.mic.start(r.built.Context(), tick.C, tick.Stop, r.voice.Level, func(l float64) { emit(a, EventMicLevel, MicLevel{Level: l}) })
	return nil
}

// Mute closes the microphone; what was said is transcribed and sent to the
// agents.
func (a *App) Mute() error {
	r, err := a.runningRun()
	if err != nil {
		return err
	}
	if r.voice == nil {
		r.run.Room().UserStops()
		return nil
	}
	r.mic.stop()
	ctx, cancel := context.WithTimeout(a.context(), micWait)
	defer cancel()
	c, err := r.voice.Mute(ctx)
	if err != nil || c == nil || !c.Speech {
		// Nothing to transcribe: the floor is free again.
		r.run.Room().UserStops()
	}
	if err != nil {
		return fmt.Errorf("mute: %w", err)
	}
	return nil
}

// MicLevel is the microphone's level (0 to 1) while unmuted. The UI
// follows EventMicLevel instead of asking each frame; this stays for a
// UI that (re)loads while the microphone is open.
func (a *App) MicLevel() float64 {
	r := a.currentRun()
	if r == nil || r.voice == nil {
		return 0
	}
	return r.voice.Level()
}

// micMeter pushes the microphone's level while it is open: one reading
// per tick (the level is sampled, so a burst of audio periods is one
// event), none when it has not changed, and a last reading of 0 when the
// meter stops, so the UI's meter never freezes lit.
type micMeter struct {
	mu   sync.Mutex
	quit chan struct{} // nil while stopped
	done chan struct{} // closed when the meter's goroutine has sent its last 0
}

// start runs the meter until stop or ctx's end; a meter already running
// is left as it is. stopTick is called when the meter ends.
func (m *micMeter) start(ctx context.Context, tick <-chan time.Time, stopTick func(), level func() float64, send func(float64)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.quit != nil {
		stopTick()
		return
	}
	quit, done := make(chan struct{}), make(chan struct{})
	m.quit, m.done = quit, done
	go func() {
		defer close(done)
		defer send(0)
		defer stopTick()
		last := -1.0
		for {
			select {
			case <-tick:
				if l := level(); l != last {
					last = l
					send(l)
				}
			case <-quit:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
}

// stop ends the meter and returns once its last 0 was sent.
func (m *micMeter) stop() {
	m.mu.Lock()
	quit, done := m.quit, m.done
	m.quit, m.done = nil, nil
	m.mu.Unlock()
	if quit == nil {
		return
	}
	close(quit)
	<-done
}
