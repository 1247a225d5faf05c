package agents

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// EventKind classifies room events.
type EventKind string

// Kinds of events a room publishes.
const (
	EventTranscript EventKind = "transcript" // Data: Entry
	EventFloor      EventKind = "floor"      // Data: FloorState
	EventProcess    EventKind = "process"    // Data: ProcInfo
	EventStep       EventKind = "step"       // Data: StepInfo
	EventUsage      EventKind = "usage"      // Data: Usage (run totals)
	EventConfirm    EventKind = "confirm"    // Data: Confirmation
	EventAsk        EventKind = "ask"        // Data: Question
	EventRun        EventKind = "run"        // Data: RunInfo
	EventModelWait  EventKind = "model_wait" // Data: ModelWait
)

// Event is one thing that happened in a room, for the UI.
type Event struct {
	Seq   int64     `json:"seq"`
	At    time.Time `json:"at"`
	Kind  EventKind `json:"kind"`
	Agent string    `json:"agent,omitempty"`
	Data  any       `json:"data,omitempty"`

	// key coalesces: a pending event is replaced by a newer one with the
	// same non-empty key (the floor's state, an agent's token meter).
	key string
}

// maxPending bounds a subscriber's queue of events that cannot be
// coalesced; past it the oldest are dropped, so a stalled UI costs memory
// only up to a point and never blocks the runtime.
const maxPending = 4096

// hub fans events out to subscribers without ever blocking the publisher.
type hub struct {
	mu   sync.Mutex
	seq  int64
	subs map[*Subscription]struct{}
}

// Subscription receives a room's events. Events of a kind that only
// matters in its latest state are coalesced while the reader is behind.
type Subscription struct {
	h       *hub
	ch      chan Event
	wake    chan struct{}
	mu      sync.Mutex
	pending []Event
	closed  bool
}

func (h *hub) publish(e Event) {
	h.mu.Lock()
	h.seq++
	e.Seq = h.seq
	subs := make([]*Subscription, 0, len(h.subs))
	for s := range h.subs {
		subs = append(subs, s)
	}
	h.mu.Unlock()
	for _, s := range subs {
		s.push(e)
	}
}

func (s *Subscription) push(e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if e.key != "" {
		for i := range s.pending {
			if s.pending[i].key == e.key {
				s.pending[i] = e
				s.notify()
				return
			}
		}
	}
	if len(s.pending) >= maxPending {
		s.pending = s.pending[1:]
	}
	s.pending = append(s.pending, e)
	s.notify()
}

func (s *Subscription) notify() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// subscribe starts delivering events until ctx ends.
func (h *hub) subscribe(ctx context.Context) *Subscription {
	s := &Subscription{h: h, ch: make(chan Event), wake: make(chan struct{}, 1)}
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[*Subscription]struct{}{}
	}
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	go s.run(ctx)
	return s
}

// C returns the channel events arrive on; it is closed when the
// subscription's context ends.
func (s *Subscription) C() <-chan Event { return s.ch }

func (s *Subscription) run(ctx context.Context) {
	defer func() {
		s.h.mu.Lock()
		delete(s.h.subs, s)
		s.h.mu.Unlock()
		s.mu.Lock()
		s.closed = true
		s.pending = nil
		s.mu.Unlock()
		close(s.ch)
	}()
	for {
		s.mu.Lock()
		var e Event
		have := len(s.pending) > 0
		if have {
			e = s.pending[0]
			s.pending = s.pending[1:]
		}
		s.mu.Unlock()
		if !have {
			select {
			case <-s.wake:
				continue
			case <-ctx.Done():
				return
			}
		}
		select {
		case s.ch <- e:
		case <-ctx.Done():
			return
		}
	}
}

// FormatEvent renders an event as one readable line, for a terminal
// (vroom run without --json).
func FormatEvent(e Event) string {
	switch d := e.Data.(type) {
	case Entry:
		switch d.Kind {
		case EntryCorrection:
			return fmt.Sprintf("[user] %s", d.Text)
		case EntryAnswer:
			return fmt.Sprintf("[user] answers: %s", d.Text)
		case EntryNotice:
			return fmt.Sprintf("[%s] %s", d.Speaker, d.Text)
		}
		s := fmt.Sprintf("[%s] says: %s", d.Speaker, d.Text)
		if d.Interrupted {
			s += " (interrupted)"
		}
		return s
	case FloorState:
		if d.Free() {
			return "floor: free"
		}
		return "floor: " + d.Speaker + " speaking"
	case ProcInfo:
		s := fmt.Sprintf("%s (pid %d) %s", d.Agent, d.PID, d.State)
		if d.Tab != "" {
			s += " on " + d.Tab
		}
		if d.State.Finished() {
			return s + fmt.Sprintf(" after %d steps: %s", d.Steps, d.Summary)
		}
		return s + ": " + d.Task
	case StepInfo:
		s := fmt.Sprintf("%s #%d %s %s → %s", d.Agent, d.Step, d.Tool, d.Args, d.Outcome)
		if d.URL != "" {
			s += " @ " + d.URL
		}
		return s
	case Usage:
		return fmt.Sprintf("tokens: %d in, %d out, $%.4f", d.PromptTokens, d.CompletionTokens, d.Cost)
	case Confirmation:
		return fmt.Sprintf("%s asks to confirm: %s (%s) %s", d.Agent, d.Action, d.Target, d.Reason)
	case Question:
		return fmt.Sprintf("%s asks: %s [%s]", d.Agent, d.Question, strings.Join(d.Options, " | "))
	case ModelWait:
		return d.String()
	case RunInfo:
		if d.State == RunStarted {
			return "run started: " + d.Task
		}
		return fmt.Sprintf("run %s: %s", d.State, d.Summary)
	}
	return fmt.Sprintf("%s %v", e.Kind, e.Data)
}
