package runner

import (
	"context"
	"sync"
	"time"

	"vroom/agents"
	"vroom/voice"
)

// speaker lets a run speak through the voice package: agents.Voice over a
// *voice.Voice.
type speaker struct{ v *voice.Voice }

// Say starts speaking text in the speaker's voice.
func (s speaker) Say(ctx context.Context, who, text string) (agents.Utterance, error) {
	p, err := s.v.Say(ctx, who, text)
	if err != nil {
		// A nil *Playback in the interface would not be nil.
		return nil, err
	}
	return p, nil
}

// trackedSpeaker is a speaker that remembers what it started playing, so
// a run's end can let its last message finish before the voice closes.
type trackedSpeaker struct {
	speaker
	said *speeches
}

// Say starts speaking text and keeps the playback.
func (s trackedSpeaker) Say(ctx context.Context, who, text string) (agents.Utterance, error) {
	p, err := s.v.Say(ctx, who, text)
	if err != nil {
		return nil, err
	}
	s.said.add(p)
	return p, nil
}

// speeches are a run's playbacks not yet known to be over.
type speeches struct {
	mu   sync.Mutex
	live []*voice.Playback
}

func (s *speeches) add(p *voice.Playback) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.live[:0]
	for _, q := range s.live {
		select {
		case <-q.Done():
		default:
			kept = append(kept, q)
		}
	}
	s.live = append(kept, p)
}

// wait blocks until every playback has ended, or at most d: a message cut
// off by the process exiting is lost, but a stuck device must not hold the
// exit for long.
func (s *speeches) wait(d time.Duration) {
	if d <= 0 {
		return
	}
	s.mu.Lock()
	live := append([]*voice.Playback(nil), s.live...)
	s.mu.Unlock()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for _, p := range live {
		select {
		case <-p.Done():
		case <-deadline.C:
			return
		}
	}
}
