package agents

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeUtterance is a voice's utterance the test ends by hand.
type fakeUtterance struct {
	mu          sync.Mutex
	done        chan struct{}
	played      time.Duration
	interrupted bool
}

func (u *fakeUtterance) Done() <-chan struct{} { return u.done }
func (u *fakeUtterance) Played() time.Duration {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.played
}
func (u *fakeUtterance) Interrupted() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.interrupted
}
func (u *fakeUtterance) Stop() { u.finish(time.Second, true) }
func (u *fakeUtterance) finish(played time.Duration, interrupted bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	select {
	case <-u.done:
		return
	default:
	}
	u.played, u.interrupted = played, interrupted
	close(u.done)
}

type fakeVoice struct {
	mu   sync.Mutex
	said []*fakeUtterance
}

func (v *fakeVoice) Say(ctx context.Context, speaker, text string) (Utterance, error) {
	u := &fakeUtterance{done: make(chan struct{})}
	v.mu.Lock()
	v.said = append(v.said, u)
	v.mu.Unlock()
	return u, nil
}

// waitEvent reads sub until an event satisfies ok, failing after a
// deadline.
func waitEvent(t *testing.T, sub *Subscription, what string, ok func(Event) bool) Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e, open := <-sub.C():
			if !open {
				t.Fatalf("subscription closed waiting for %s", what)
			}
			if ok(e) {
				return e
			}
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func floorFree(e Event) bool {
	s, ok := e.Data.(FloorState)
	return e.Kind == EventFloor && ok && s.Free()
}

func TestRoomSinceCarriesConversationFloorAndCorrections(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	r := newRoom(roomConfig{Clock: clk})
	ctx := context.Background()

	if _, err := r.Speak(ctx, "agent 1", "hello"); err != nil {
		t.Fatal(err)
	}
	u := r.since("agent 2")
	if len(u.Entries) != 1 || u.Entries[0].Text != "hello" || u.Floor.Speaker != "agent 1" {
		t.Fatalf("update %+v", u)
	}
	txt := u.text()
	if !strings.Contains(txt, "agent 1: hello") || !strings.Contains(txt, "agent 1 is speaking") {
		t.Fatalf("text:\n%s", txt)
	}
	// agent 2 is not told twice; agent 1 is not told its own message.
	if u := r.since("agent 2"); len(u.Entries) != 0 {
		t.Fatalf("repeated: %+v", u.Entries)
	}
	if u := r.since("agent 1"); len(u.Entries) != 0 || !strings.Contains(u.text(), "you are speaking") {
		t.Fatalf("own message repeated: %s", u.text())
	}
	// agent 2 must wait: busy with time left.
	_, err := r.Speak(ctx, "agent 2", "hello there")
	var busy *busyError
	if !errors.As(err, &busy) || busy.Speaker != "agent 1" {
		t.Fatalf("speak over agent 1: %v", err)
	}
	clk.Advance(r.floor.ReadingTime("hello"))
	if !r.floor.State().Free() {
		t.Fatal("text-only message still holds the floor after its reading time")
	}
	if _, err := r.Speak(ctx, "agent 2", "hello there"); err != nil {
		t.Fatal(err)
	}

	r.UserSays("find the most recent repo instead")
	for _, a := range []string{"agent 1", "agent 2", "planner"} {
		u := r.since(a)
		if len(u.Corrections) != 1 || !strings.HasPrefix(u.text(), "<user_correction priority=\"high\">\nPRIORITY INSTRUCTION FROM THE USER") ||
			!strings.Contains(u.text(), "find the most recent repo instead") {
			t.Fatalf("%s did not get the correction first:\n%s", a, u.text())
		}
		if u := r.since(a); len(u.Corrections) != 0 {
			t.Fatalf("%s got the correction twice", a)
		}
	}
	// A late joiner still gets history and the correction.
	if u := r.since("agent 3"); len(u.Corrections) != 1 || len(u.Entries) != 2 {
		t.Fatalf("late joiner: %+v", u)
	}
}

func TestRoomBacklogBounded(t *testing.T) {
	t.Parallel()
	r := newRoom(roomConfig{Clock: newFakeClock(), MaxBacklog: 3})
	for i := 0; i < 10; i++ {
		r.Notice("notice %d", i)
	}
	u := r.since("a")
	if len(u.Entries) != 3 || u.Omitted != 7 || u.Entries[2].Text != "notice 9" || !strings.Contains(u.text(), "7 earlier messages omitted") {
		t.Fatalf("%+v", u)
	}
}

func TestRoomVoiceHoldsFloorUntilPlaybackEnds(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	v := &fakeVoice{}
	r := newRoom(roomConfig{Clock: clk, Voice: v})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub := r.Subscribe(ctx)
	if _, err := r.Speak(ctx, "agent 1", "a short line"); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5 * time.Second) // beyond the reading estimate: playback is slow
	if r.floor.State().Speaker != "agent 1" {
		t.Fatal("floor released before the voice reported the end")
	}
	v.said[0].finish(4*time.Second, false)
	waitEvent(t, sub, "release at end of playback", floorFree)
	if p := r.Transcript()[0].Played; p != 4*time.Second {
		t.Fatalf("played %v recorded", p)
	}
}

func TestRoomUserInterruptsSpeaker(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	v := &fakeVoice{}
	r := newRoom(roomConfig{Clock: clk, Voice: v})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub := r.Subscribe(ctx)
	if _, err := r.Speak(ctx, "agent 1", "I will now open the most popular repo"); err != nil {
		t.Fatal(err)
	}
	r.UserStarts()
	if s := r.floor.State(); s.Speaker != User {
		t.Fatalf("user does not hold the floor: %+v", s)
	}
	select {
	case <-v.said[0].Done():
	default:
		t.Fatal("agent audio not stopped at once")
	}
	if tr := r.Transcript(); !tr[0].Interrupted {
		t.Fatal("message not marked interrupted")
	}
	u := r.since("agent 2")
	if !strings.Contains(u.text(), "(interrupted by the user)") || !strings.Contains(u.text(), "the user is speaking") {
		t.Fatalf("update:\n%s", u.text())
	}
	r.UserSays("no, the most recent repo")
	r.UserStops()
	if !r.floor.State().Free() {
		t.Fatal("floor not free after the user")
	}
	waitEvent(t, sub, "the interruption on the event stream", func(e Event) bool {
		en, ok := e.Data.(Entry)
		return ok && e.Kind == EventTranscript && en.Interrupted
	})
}

// TestRoomInterruptionNeverLost: the playback goroutine may see the claim
// end and drop it before UserStarts looks it up (the CI flake of
// TestDesktopUnmuteInterrupts). Taking the floor behind the room's back
// forces that order: the mark must still reach the event stream.
func TestRoomInterruptionNeverLost(t *testing.T) {
	t.Parallel()
	r := newRoom(roomConfig{Clock: newFakeClock(), Voice: &fakeVoice{}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub := r.Subscribe(ctx)
	if _, err := r.Speak(ctx, "agent 1", "a long message"); err != nil {
		t.Fatal(err)
	}
	r.floor.TakeUser()
	waitEvent(t, sub, "the interruption on the event stream", func(e Event) bool {
		en, ok := e.Data.(Entry)
		return ok && e.Kind == EventTranscript && en.Interrupted
	})
	if tr := r.Transcript(); !tr[0].Interrupted {
		t.Fatal("message not marked interrupted")
	}
}

func TestRoomEventsNeverBlockAndCoalesce(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	r := newRoom(roomConfig{Clock: clk})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub := r.Subscribe(ctx) // never read until the end
	for i := 0; i < 20000; i++ {
		c, err := r.floor.Claim("agent 1")
		if err != nil {
			t.Fatal(err)
		}
		c.Release()
	}
	r.Notice("last")
	var floor, transcript int
	var last Event
	for transcript == 0 {
		e := <-sub.C()
		switch e.Kind {
		case EventFloor:
			floor++
		case EventTranscript:
			transcript++
			last = e
		}
	}
	if floor > 2 {
		t.Fatalf("%d floor events delivered to a stalled reader; want them coalesced", floor)
	}
	if last.Data.(Entry).Text != "last" {
		t.Fatalf("last event %+v", last)
	}
}

func TestRunLogRedactsAndReplays(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	var buf bytes.Buffer
	l := NewRunLog(&buf, clk)
	l.Redact("sk-very-secret")
	l.Write(LogRecord{Event: LogRunStart, Text: "task with key sk-very-secret"})
	clk.Advance(1500 * time.Millisecond)
	effect := false
	l.Write(LogRecord{Event: LogTool, Agent: "agent 1", Step: 3, Tool: "click", Args: []byte(`{"ref":"e12"}`), Outcome: "clicked", Effect: &effect})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "sk-very-secret") {
		t.Fatal("secret reached the log")
	}
	recs, err := ReadRunLog(&buf)
	if err != nil || len(recs) != 2 {
		t.Fatal(err, len(recs))
	}
	var out bytes.Buffer
	if err := Replay(&out, recs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "[redacted]") ||
		!strings.Contains(lines[1], `1.50s agent 1`) || !strings.Contains(lines[1], `click {"ref":"e12"} → clicked (no visible effect)`) {
		t.Fatalf("replay:\n%s", out.String())
	}
}

func TestFormatEvent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		e    Event
		want string
	}{
		{Event{Data: Entry{Speaker: "agent 1", Kind: EntrySpeech, Text: "hello", Interrupted: true}}, "[agent 1] says: hello (interrupted)"},
		{Event{Data: Entry{Speaker: User, Kind: EntryCorrection, Text: "stop"}}, "[user] stop"},
		{Event{Data: Entry{Speaker: User, Kind: EntryAnswer, Text: "Deny. (answering agent 1)"}}, "[user] answers: Deny. (answering agent 1)"},
		{Event{Data: FloorState{Speaker: "agent 2"}}, "floor: agent 2 speaking"},
		{Event{Data: ProcInfo{PID: 1, Agent: "agent 1", State: ProcDone, Tab: "t1", Steps: 4, Summary: "ok"}}, "agent 1 (pid 1) done on t1 after 4 steps: ok"},
		{Event{Data: StepInfo{Agent: "agent 1", Step: 2, Tool: "click", Args: `{"ref":"e1"}`, Outcome: "click e1: page changed"}}, `agent 1 #2 click {"ref":"e1"} → click e1: page changed`},
		{Event{Data: Question{Agent: "planner", Question: "Which repo?", Options: []string{"a", "b"}}}, "planner asks: Which repo? [a | b]"},
	} {
		if got := FormatEvent(tc.e); got != tc.want {
			t.Errorf("FormatEvent = %q, want %q", got, tc.want)
		}
	}
}

// A muted agent's message is in the transcript and holds the floor for its
// reading time, but never reaches the voice, and is logged as muted rather
// than as a failed speech. Unmuted, the next message is played again.
func TestRoomMutedAgentIsTextOnly(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	v := &fakeVoice{}
	var buf bytes.Buffer
	log := NewRunLog(&buf, clk)
	r := newRoom(roomConfig{Clock: clk, Voice: v, Log: log})
	ctx := context.Background()

	r.SetMuted("agent 1", true)
	r.SetMuted("planner", true)
	r.SetMuted("planner", false)
	if got := r.Muted(); len(got) != 1 || got[0] != "agent 1" {
		t.Fatalf("muted %v, want [agent 1]", got)
	}
	const msg = "I found the order page"
	if _, err := r.Speak(ctx, "agent 1", msg); err != nil {
		t.Fatal(err)
	}
	v.mu.Lock()
	said := len(v.said)
	v.mu.Unlock()
	if said != 0 {
		t.Fatalf("a muted agent's message reached the voice %d times", said)
	}
	if tr := r.Transcript(); len(tr) != 1 || tr[0].Text != msg || tr[0].Speaker != "agent 1" {
		t.Fatalf("transcript %+v", tr)
	}
	if s := r.floor.State(); s.Speaker != "agent 1" {
		t.Fatalf("floor %+v, want agent 1 holding it while its message is read", s)
	}
	clk.Advance(r.floor.ReadingTime(msg))
	if !r.floor.State().Free() {
		t.Fatal("the muted message still holds the floor after its reading time")
	}

	r.SetMuted("agent 1", false)
	if _, err := r.Speak(ctx, "agent 1", "now aloud"); err != nil {
		t.Fatal(err)
	}
	v.mu.Lock()
	said = len(v.said)
	v.mu.Unlock()
	if said != 1 {
		t.Fatalf("the unmuted agent's message reached the voice %d times, want 1", said)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadRunLog(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var muted, failed int
	for _, rec := range recs {
		switch rec.Event {
		case LogSpeechMuted:
			muted++
		case LogSpeechFailed:
			failed++
		}
	}
	if muted != 1 || failed != 0 {
		t.Fatalf("log has %d speech_muted and %d speech_failed, want 1 and 0", muted, failed)
	}
}

// The person's answer to a card is theirs in the transcript and in other
// agents' conversation, but it is not a correction.
func TestRoomUserAnswerIsNotACorrection(t *testing.T) {
	t.Parallel()
	r := newRoom(roomConfig{Clock: newFakeClock()})
	corrected := r.nextCorrection()
	r.UserAnswers("deny")
	select {
	case <-corrected:
		t.Fatal("an answer signalled a correction")
	default:
	}
	u := r.since("agent 2")
	if len(u.Corrections) != 0 || len(u.Entries) != 1 || u.Entries[0].Speaker != User || u.Entries[0].Kind != EntryAnswer {
		t.Fatalf("update %+v", u)
	}
	if strings.Contains(u.text(), "PRIORITY") {
		t.Fatalf("an answer is marked as a priority correction:\n%s", u.text())
	}
}

// TestRoomMuteStopsThePlayingMessage: muting an agent while it speaks
// silences it at once and frees the floor, without marking the message
// interrupted.
func TestRoomMuteStopsThePlayingMessage(t *testing.T) {
	t.Parallel()
	v := &fakeVoice{}
	r := newRoom(roomConfig{Clock: newFakeClock(), Voice: v})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub := r.Subscribe(ctx)
	if _, err := r.Speak(ctx, "agent 1", "a long message about the order page"); err != nil {
		t.Fatal(err)
	}
	r.SetMuted("agent 1", true)
	v.mu.Lock()
	u := v.said[0]
	v.mu.Unlock()
	select {
	case <-u.Done():
	default:
		t.Fatal("the playing message was not stopped by the mute")
	}
	waitEvent(t, sub, "the floor free", floorFree)
	if tr := r.Transcript(); tr[0].Interrupted {
		t.Fatalf("a muted message marked interrupted: %+v", tr[0])
	}
}
