package agents

import (
	"context"
	"fmt"
	"strings"
)

// RoomCond is what an agent can wait for in the room rather than on its
// page: someone else saying something, or the floor coming free. It makes
// a turn in a conversation cost one call instead of a poll per look.
type RoomCond struct {
	// Heard: a message from someone else in the room (an agent, the
	// person, a notice) contains this text, case-insensitively. One said
	// before the wait began counts too.
	Heard string
	// FloorFree: nobody holds the floor. With Heard, both: the message
	// was said and its speaker has finished, which is a turn to speak.
	FloorFree bool
}

// Set reports whether c asks for anything.
func (c RoomCond) Set() bool { return c.Heard != "" || c.FloorFree }

// String completes "waited until …".
func (c RoomCond) String() string {
	var parts []string
	if c.Heard != "" {
		parts = append(parts, fmt.Sprintf("someone said %q", c.Heard))
	}
	if c.FloorFree {
		parts = append(parts, "the floor was free")
	}
	return strings.Join(parts, " and ")
}

// await blocks until c holds for agent, or ctx ends, and says which part
// held: the message heard, or the free floor.
func (r *Room) await(ctx context.Context, agent string, c RoomCond) (string, error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sub := r.Subscribe(sctx) // before the first look, so nothing said between is missed
	for {
		if met, ok := r.holds(agent, c); ok {
			return met, nil
		}
		select {
		case _, ok := <-sub.C():
			if !ok {
				return "", ctx.Err()
			}
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// holds checks c now.
func (r *Room) holds(agent string, c RoomCond) (string, bool) {
	var said string
	if c.Heard != "" {
		want := strings.ToLower(c.Heard)
		r.mu.Lock()
		for _, e := range r.entries {
			if e.Speaker != agent && strings.Contains(strings.ToLower(e.Text), want) {
				said = fmt.Sprintf("%s said %q", e.Speaker, clip(e.Text, 200))
				break
			}
		}
		r.mu.Unlock()
		if said == "" {
			return "", false
		}
	}
	if !c.FloorFree {
		return said, true
	}
	if !r.floor.State().Free() {
		return "", false
	}
	if said == "" {
		return "the floor is free", true
	}
	return said + " and the floor is free", true
}
