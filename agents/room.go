package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Voice speaks messages aloud. The voice package implements it; agents
// only declares what it needs.
type Voice interface {
	// Say starts speaking text in speaker's voice. It returns once playback
	// has started (or failed); the Utterance reports the end.
	Say(ctx context.Context, speaker, text string) (Utterance, error)
}

// Utterance is one message being played.
type Utterance interface {
	// Done is closed when playback ends, completed or stopped.
	Done() <-chan struct{}
	// Played is how much audio actually played.
	Played() time.Duration
	// Interrupted reports whether playback was stopped before the end.
	Interrupted() bool
	// Stop silences the utterance; it must not block.
	Stop()
}

// EntryKind classifies transcript entries.
type EntryKind string

// Kinds of transcript entries.
const (
	EntrySpeech     EntryKind = "speech"     // an agent spoke
	EntryCorrection EntryKind = "correction" // the person said or typed something
	EntryNotice     EntryKind = "notice"     // the system reports something
	// EntryAnswer is the person answering a waiting card by voice: shown
	// as theirs, but not a correction, so agents do not act on it twice.
	EntryAnswer EntryKind = "answer"
)

// System is the speaker of notices.
const System = "system"

// Entry is one line of a room's transcript.
type Entry struct {
	Seq         int           `json:"seq"`
	At          time.Time     `json:"at"`
	Speaker     string        `json:"speaker"`
	Kind        EntryKind     `json:"kind"`
	Text        string        `json:"text"`
	Interrupted bool          `json:"interrupted,omitempty"`
	Played      time.Duration `json:"played,omitempty"`
}

// roomConfig configures a Room.
type roomConfig struct {
	Clock Clock
	// Floor configures the floor; its Clock and OnChange are set by the
	// room.
	Floor FloorConfig
	// Voice speaks messages; nil means text-only, where the floor is held
	// for a message's estimated reading time.
	Voice Voice
	// MaxBacklog bounds how many transcript entries one update carries
	// (default 30); older ones are summarised as a count.
	MaxBacklog int
	// Log receives every event (nil: none).
	Log *RunLog
}

// Room is one run's shared space: the transcript, the floor and the event
// stream. It is safe for concurrent use.
type Room struct {
	cfg   roomConfig
	clock Clock
	start time.Time
	floor *floor
	hub   hub

	mu          sync.Mutex
	entries     []Entry
	cursors     map[string]int      // agent → number of entries it has seen
	claims      map[*floorClaim]int // live claim → its entry's index
	corrected   chan struct{}
	corrections int
	muted       map[string]bool // agents whose messages are shown, not played
	playing     map[string]playing
}

// playing is a message being played, so muting its speaker can stop it.
type playing struct {
	c        *floorClaim
	u        Utterance
	silenced bool // stopped by a mute: not an interruption
}

// newRoom returns an empty room.
func newRoom(cfg roomConfig) *Room {
	if cfg.Clock == nil {
		cfg.Clock = wallClock()
	}
	if cfg.MaxBacklog <= 0 {
		cfg.MaxBacklog = 30
	}
	r := &Room{
		cfg:       cfg,
		clock:     cfg.Clock,
		start:     cfg.Clock.Now(),
		cursors:   map[string]int{},
		claims:    map[*floorClaim]int{},
		corrected: make(chan struct{}),
		muted:     map[string]bool{},
		playing:   map[string]playing{},
	}
	fc := cfg.Floor
	fc.Clock = cfg.Clock
	fc.OnChange = func(s FloorState) {
		// Called under the floor's lock: publishing never blocks.
		r.publish(Event{Kind: EventFloor, Agent: s.Speaker, Data: s, key: "floor"})
	}
	r.floor = newFloor(fc)
	return r
}

// Subscribe delivers the room's events until ctx ends. Slow readers get
// floor and meter updates coalesced to the latest; the room never waits
// for them.
func (r *Room) Subscribe(ctx context.Context) *Subscription { return r.hub.subscribe(ctx) }

func (r *Room) publish(e Event) {
	if e.At.IsZero() {
		e.At = r.clock.Now()
	}
	r.hub.publish(e)
}

// Transcript returns a copy of every entry so far.
func (r *Room) Transcript() []Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Entry(nil), r.entries...)
}

func (r *Room) add(e Entry) Entry {
	r.mu.Lock()
	e.Seq = len(r.entries) + 1
	e.At = r.clock.Now()
	r.entries = append(r.entries, e)
	if e.Kind == EntryCorrection {
		r.corrections++
		close(r.corrected)
		r.corrected = make(chan struct{})
	}
	r.mu.Unlock()
	r.publish(Event{At: e.At, Kind: EventTranscript, Agent: e.Speaker, Data: e})
	r.cfg.Log.Write(LogRecord{Event: LogTranscript, Agent: e.Speaker, Kind: string(e.Kind), Text: e.Text})
	return e
}

// Notice adds a system notice to the transcript.
func (r *Room) Notice(format string, args ...any) {
	r.add(Entry{Speaker: System, Kind: EntryNotice, Text: fmt.Sprintf(format, args...)})
}

// nextCorrection returns a channel closed at the next user correction, so an
// agent can cancel an in-flight model call and re-issue it with the
// correction.
func (r *Room) nextCorrection() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.corrected
}

// UserStarts gives the person the floor at once (unmute or push-to-talk):
// whoever speaks is cut off and their message marked interrupted.
func (r *Room) UserStarts() {
	if c := r.floor.TakeUser(); c != nil {
		r.markInterrupted(c)
	}
}

// markInterrupted marks c's message interrupted and tells the UI, once.
// Both the person's unmute and the end of playback call it: whichever comes
// first wins, so the mark is never lost to the other's timing.
func (r *Room) markInterrupted(c *floorClaim) {
	r.mu.Lock()
	i, ok := r.claims[c]
	if !ok || i >= len(r.entries) || r.entries[i].Interrupted {
		r.mu.Unlock()
		return
	}
	r.entries[i].Interrupted = true
	e := r.entries[i]
	r.mu.Unlock()
	r.publish(Event{Kind: EventTranscript, Agent: e.Speaker, Data: e})
	r.cfg.Log.Write(LogRecord{Event: LogInterrupted, Agent: e.Speaker, Text: e.Text})
}

// UserSays adds what the person said (transcribed) or typed. It reaches
// every agent's next tool result as a priority instruction.
func (r *Room) UserSays(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	r.add(Entry{Speaker: User, Kind: EntryCorrection, Text: text})
}

// UserStops ends the person's turn on the floor.
func (r *Room) UserStops() { r.floor.ReleaseUser() }

// UserAnswers adds the person's spoken answer to a waiting card. The
// answer reaches the waiting agent through the card; to the others it is
// conversation, not a correction.
func (r *Room) UserAnswers(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	r.add(Entry{Speaker: User, Kind: EntryAnswer, Text: text})
}

// SetMuted mutes or unmutes agent's voice. A muted agent's messages are
// still in the transcript and hold the floor for their reading time, but
// are never sent to the voice, so no speech is generated for them. A
// message playing when its speaker is muted stops at once and frees the
// floor; it is not marked interrupted (the whole text is in the
// transcript, and nobody took the floor from it).
func (r *Room) SetMuted(agent string, muted bool) {
	r.mu.Lock()
	var stop Utterance
	if muted {
		r.muted[agent] = true
		if p, ok := r.playing[agent]; ok {
			p.silenced = true
			r.playing[agent] = p
			stop = p.u
		}
	} else {
		delete(r.muted, agent)
	}
	r.mu.Unlock()
	if stop != nil {
		r.cfg.Log.Write(LogRecord{Event: LogSpeechMuted, Agent: agent, Text: "stopped while playing"})
		stop.Stop()
	}
}

// Muted returns the agents whose voices are muted, sorted.
func (r *Room) Muted() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.muted))
	for a := range r.muted {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// Speak claims the floor for speaker and, on success, says text: aloud
// through the voice, or text-only for its reading time. It returns once
// the message has started; the floor is released when it ends. A busy
// floor gives an error wrapping errFloorBusy.
func (r *Room) Speak(ctx context.Context, speaker, text string) (Entry, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Entry{}, errors.New("speak: empty message")
	}
	c, err := r.floor.Claim(speaker)
	if err != nil {
		r.cfg.Log.Write(LogRecord{Event: LogFloorRejected, Agent: speaker, Error: err.Error()})
		return Entry{}, fmt.Errorf("speak: %w", err)
	}
	r.cfg.Log.Write(LogRecord{Event: LogFloorClaimed, Agent: speaker})
	e := r.add(Entry{Speaker: speaker, Kind: EntrySpeech, Text: text})
	r.mu.Lock()
	r.claims[c] = e.Seq - 1
	muted := r.muted[speaker]
	r.mu.Unlock()
	if r.cfg.Voice == nil || muted {
		if muted {
			r.cfg.Log.Write(LogRecord{Event: LogSpeechMuted, Agent: speaker})
		}
		r.readOnly(c, text)
		return e, nil
	}
	return e, r.sayAloud(ctx, c, speaker, text)
}

// readOnly holds the floor for text's reading time: a message shown, not
// played.
func (r *Room) readOnly(c *floorClaim, text string) {
	c.ReadFor(r.floor.ReadingTime(text))
	go r.forget(c)
}

// sayAloud plays a message that holds claim c. Say may take until the
// speech endpoint's first byte: the claim's time-to-live and the caller's
// ctx bound that wait. Once playing, the message outlives the agent's
// step, and the agent too (an agent may say goodbye and finish): only the
// claim's end stops it.
func (r *Room) sayAloud(ctx context.Context, c *floorClaim, speaker, text string) error {
	sayCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	started := make(chan struct{})
	go func() {
		select {
		case <-c.Done():
			cancel()
		case <-sayCtx.Done():
		case <-started:
			select {
			case <-c.Done():
				cancel()
			case <-sayCtx.Done():
			}
		case <-ctx.Done():
			cancel()
		}
	}()
	u, err := r.cfg.Voice.Say(sayCtx, speaker, text)
	close(started)
	if err != nil {
		cancel()
		if ctx.Err() != nil {
			c.Release()
			go r.forget(c)
			return fmt.Errorf("speak: %w", ctx.Err())
		}
		r.cfg.Log.Write(LogRecord{Event: LogSpeechFailed, Agent: speaker, Error: err.Error()})
		// The message stays in the transcript and holds the floor for its
		// reading time, as text-only: it was said, if not aloud.
		r.readOnly(c, text)
		return nil
	}
	c.OnInterrupt(u.Stop)
	c.Playing(r.floor.ReadingTime(text))
	r.mu.Lock()
	r.playing[speaker] = playing{c: c, u: u}
	r.mu.Unlock()
	go r.play(speaker, c, u, cancel)
	return nil
}

// play follows a message to its end: the end of playback frees the floor,
// and the claim's end (expired, interrupted) stops the playback.
func (r *Room) play(speaker string, c *floorClaim, u Utterance, cancel context.CancelFunc) {
	defer cancel()
	defer func() {
		r.mu.Lock()
		if r.playing[speaker].c == c {
			delete(r.playing, speaker)
		}
		r.mu.Unlock()
	}()
	select {
	case <-u.Done():
		// Record what played before the floor frees, so whoever speaks
		// next sees the finished entry.
		r.record(speaker, c, u)
		c.Release()
	case <-c.Done():
		u.Stop() // expired or interrupted
		<-u.Done()
		r.record(speaker, c, u)
	}
	r.forget(c)
}

// record stores what an utterance played in its entry.
func (r *Room) record(speaker string, c *floorClaim, u Utterance) {
	r.mu.Lock()
	if i, ok := r.claims[c]; ok && i < len(r.entries) {
		r.entries[i].Played = u.Played()
	}
	p := r.playing[speaker]
	silenced := p.c == c && p.silenced
	r.mu.Unlock()
	if u.Interrupted() && !silenced {
		r.markInterrupted(c)
	}
}

// forget drops a claim once it has ended. An interrupted claim's message
// is marked first: the person's unmute may not have found it yet.
func (r *Room) forget(c *floorClaim) {
	<-c.Done()
	if c.Reason() == claimInterrupted {
		r.markInterrupted(c)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.claims, c)
}

// roomUpdate is what an agent learns at each tool result: the conversation
// since its last turn, the floor's state, and the person's corrections.
type roomUpdate struct {
	Entries     []Entry
	Omitted     int // older entries left out to bound the prompt
	Corrections []Entry
	Floor       FloorState
	Self        string

	start time.Time // the run's start, for relative times
}

// since returns what agent has not seen yet and marks it seen. The agent's
// own messages are not repeated to it.
func (r *Room) since(agent string) roomUpdate {
	r.mu.Lock()
	from := r.cursors[agent]
	r.cursors[agent] = len(r.entries)
	var u roomUpdate
	for _, e := range r.entries[from:] {
		if e.Kind == EntryCorrection {
			u.Corrections = append(u.Corrections, e)
			continue
		}
		if e.Speaker == agent {
			continue
		}
		u.Entries = append(u.Entries, e)
	}
	r.mu.Unlock()
	if n := len(u.Entries) - r.cfg.MaxBacklog; n > 0 {
		u.Omitted = n
		u.Entries = u.Entries[n:]
	}
	u.Floor = r.floor.State()
	u.Self = agent
	u.start = r.start
	return u
}

// conversation renders only what was said (corrections and messages), ""
// when nothing was.
func (u roomUpdate) conversation() string {
	if len(u.Entries) == 0 && len(u.Corrections) == 0 && u.Omitted == 0 {
		return ""
	}
	var b strings.Builder
	for _, c := range u.Corrections {
		fmt.Fprintf(&b, "[user correction] %s\n", c.Text)
	}
	if u.Omitted > 0 {
		fmt.Fprintf(&b, "(%d earlier messages omitted)\n", u.Omitted)
	}
	for _, e := range u.Entries {
		u.writeEntry(&b, e)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (u roomUpdate) writeEntry(b *strings.Builder, e Entry) {
	fmt.Fprintf(b, "[+%.1fs] %s: %s", e.At.Sub(u.start).Seconds(), e.Speaker, e.Text)
	if e.Interrupted {
		b.WriteString(" (interrupted by the user)")
	}
	b.WriteByte('\n')
}

// text renders the update for a tool result. Corrections come first and
// are marked as priority instructions from the user.
func (u roomUpdate) text() string {
	var b strings.Builder
	for _, c := range u.Corrections {
		fmt.Fprintf(&b, "<user_correction priority=\"high\">\nPRIORITY INSTRUCTION FROM THE USER (it overrides your task where they conflict): %s\n</user_correction>\n", c.Text)
	}
	b.WriteString("<room>\n")
	if len(u.Entries) == 0 && u.Omitted == 0 {
		b.WriteString("No new messages since your last turn.\n")
	} else {
		b.WriteString("Conversation since your last turn:\n")
		if u.Omitted > 0 {
			fmt.Fprintf(&b, "(%d earlier messages omitted)\n", u.Omitted)
		}
		for _, e := range u.Entries {
			u.writeEntry(&b, e)
		}
	}
	s := u.Floor
	if s.Speaker == u.Self && u.Self != "" {
		b.WriteString("Floor: you are speaking.\n")
	} else {
		fmt.Fprintf(&b, "Floor: %s.\n", s)
	}
	b.WriteString("</room>")
	return b.String()
}
