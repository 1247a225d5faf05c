package app

import (
	"context"

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
