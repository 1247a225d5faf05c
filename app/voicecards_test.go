package app

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

func TestVoiceAnswer(t *testing.T) {
	t.Parallel()
	confirm := Card{Kind: "confirm", Action: "click e3", Target: `button "Place order"`}
	repos := Card{Kind: "ask", Question: "Which repo?", Options: []string{"The most recent repo", "The most popular repo"}}
	cities := Card{Kind: "ask", Question: "Where to?", Options: []string{"Paris", "London", "New York"}}
	yesNo := Card{Kind: "ask", Question: "Keep going?", Options: []string{"Yes", "No"}}
	for _, tc := range []struct {
		card Card
		said string
		want string // "" means not an answer
	}{
		{confirm, "Allow.", "once"},
		{confirm, "allow once", "once"},
		{confirm, "Yes, please.", "once"},
		{confirm, "Allow for this run!", "run"},
		{confirm, "always", "run"},
		{confirm, "Deny.", "deny"},
		{confirm, "No.", "deny"},
		{confirm, "Don't.", "deny"},
		{confirm, "don’t do it", "deny"},
		{confirm, "um, deny", "deny"},
		{confirm, "", ""},
		{confirm, "...", ""},
		// A sentence is a correction, even one that starts like an answer.
		{confirm, "No, take the most recent repo instead.", ""},
		{confirm, "allow me to explain", ""},
		{confirm, "yes no", ""},
		{confirm, "okay", ""}, // acknowledging is not allowing

		{repos, "the most recent repo", "The most recent repo"},
		{repos, "Recent.", "The most recent repo"},
		{repos, "I'll take the popular one", "The most popular repo"},
		{repos, "the second one", "The most popular repo"},
		{repos, "first", "The most recent repo"},
		{repos, "repo", ""},              // every option has it
		{repos, "recent or popular", ""}, // both named
		{repos, "stop and open my profile settings instead, the recent one is wrong", ""},

		{cities, "London", "London"},
		{cities, "let's go with New York", "New York"},
		{cities, "york", "New York"},
		{cities, "option 3", "New York"},
		{cities, "the last one", "New York"},
		{cities, "fourth", ""},
		{cities, "Berlin", ""},
		{cities, "go to London and then book the cheapest flight you can find there", ""},

		{yesNo, "Yes.", "Yes"},
		{yesNo, "no", "No"},
		{yesNo, "maybe", ""},

		{Card{Kind: "ask"}, "anything", ""},
		{Card{Kind: "other"}, "allow", ""},
	} {
		got, ok := voiceAnswer(tc.card, tc.said)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("%s card, said %q: got %q, %v; want %q", tc.card.Kind, tc.said, got, ok, tc.want)
		}
	}
}

// A spoken "deny" while a confirmation waits answers it (the site gets no
// order), shows in the transcript as the person's answer, and is not sent
// to the agents as a correction; something that is not an answer is left
// for the room. hear calls answerByVoice with each transcript; the
// microphone and transcription are covered by TestDesktopVoiceAnswersCard.
func TestSessionVoiceAnswersCard(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	s := apptest.NewSite(t)
	apptest.ScriptBuyer(d.srv, s)
	if _, err := d.Submit("buy the mug", nil); err != nil {
		t.Fatal(err)
	}
	x, _ := d.ui.wait(t, 30*time.Second, string(EventCard), 0, nil)
	c := x.(Card)
	r := d.currentRun()
	if d.answerByVoice(r, "no, buy the blue mug instead") {
		t.Fatal("a correction was taken as the answer")
	}
	if !d.answerByVoice(r, "Deny.") {
		t.Fatal("a spoken deny did not answer the card")
	}
	d.ui.wait(t, 5*time.Second, string(EventCardClosed), 0, func(x any) bool { return x == c.ID })
	x, _ = d.ui.wait(t, 60*time.Second, string(EventRun), 0, func(x any) bool { return x.(RunView).State != "running" })
	s.State(func(s *apptest.Site) {
		if s.Orders != 0 {
			t.Fatalf("the site received %d orders after a spoken deny", s.Orders)
		}
	})
	var answered bool
	for _, e := range x.(RunView).Transcript {
		if e.Kind == agents.EntryAnswer && e.Speaker == agents.User && strings.HasPrefix(e.Text, "Deny.") {
			answered = true
		}
		if e.Kind == agents.EntryCorrection && strings.Contains(e.Text, "Deny") {
			t.Errorf("the answer was also a correction: %+v", e)
		}
	}
	if !answered {
		t.Errorf("the transcript lacks the person's answer: %+v", x.(RunView).Transcript)
	}
	for _, req := range d.srv.Requests("executor") {
		if strings.Contains(req.Text(), "PRIORITY INSTRUCTION FROM THE USER") {
			t.Errorf("an executor prompt carried the answer as a correction:\n%s", req.LastText())
		}
	}
}

// recordingVoice is a voice that plays nothing and records who it was
// asked to speak for.
type recordingVoice struct {
	mu   sync.Mutex
	said []string
}

type silentUtterance struct{ done chan struct{} }

func (u silentUtterance) Done() <-chan struct{} { return u.done }
func (u silentUtterance) Played() time.Duration { return 0 }
func (u silentUtterance) Interrupted() bool     { return false }
func (u silentUtterance) Stop()                 {}
func (v *recordingVoice) speakers() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.said)
}

func (v *recordingVoice) Say(_ context.Context, who, _ string) (agents.Utterance, error) {
	v.mu.Lock()
	v.said = append(v.said, who)
	v.mu.Unlock()
	u := silentUtterance{done: make(chan struct{})}
	close(u.done)
	return u, nil
}

// An agent muted from its tile still speaks into the transcript, but the
// voice is never asked to say it; the state reaches the UI as an event and
// in the run's view.
func TestSessionAgentMuted(t *testing.T) {
	t.Parallel()
	v := &recordingVoice{}
	d := newDesk(t, func(o *Options) {
		edit := o.EditRun
		o.EditRun = func(c *agents.Config) { edit(c); c.Voice = v }
	})
	s := apptest.NewSite(t)
	d.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "read the quote", "url": s.URL + "/quote.html"}))
	release := make(chan struct{})
	const msg = "I am reading the quote now"
	d.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch r.ToolResults() {
		case 0:
			select {
			case <-release:
			case <-time.After(30 * time.Second):
			}
			return apptest.Call("speak", "text", msg)
		}
		return apptest.Done("read it", true)
	}})
	if err := d.SetAgentMuted("agent 1", true); err != ErrNoRun {
		t.Fatalf("mute with no run: %v, want ErrNoRun", err)
	}
	if _, err := d.Submit("read the quote", nil); err != nil {
		t.Fatal(err)
	}
	d.ui.wait(t, 30*time.Second, string(EventRoom), 0, func(x any) bool {
		p, ok := x.(agents.Event).Data.(agents.ProcInfo)
		return ok && p.Agent == "agent 1"
	})
	if err := d.SetAgentMuted("agent 7", true); !errors.Is(err, ErrNoAgent) {
		t.Fatalf("mute an unknown agent: %v, want ErrNoAgent", err)
	}
	if err := d.SetAgentMuted("agent 1", true); err != nil {
		t.Fatal(err)
	}
	x, _ := d.ui.wait(t, 5*time.Second, string(EventMuted), 0, nil)
	if m := x.(MutedView); len(m.Agents) != 1 || m.Agents[0] != "agent 1" || m.RunID == "" {
		t.Fatalf("muted event %+v", m)
	}
	if rv := d.Run(); rv == nil || !slices.Equal(rv.Muted, []string{"agent 1"}) {
		t.Fatalf("run view muted %v, want [agent 1]", rv.Muted)
	}
	// The planner has no tile but its strip has the same toggle.
	if err := d.SetAgentMuted("planner", true); err != nil {
		t.Fatal(err)
	}
	if rv := d.Run(); !slices.Equal(rv.Muted, []string{"agent 1", "planner"}) {
		t.Fatalf("run view muted %v, want [agent 1 planner]", rv.Muted)
	}
	if err := d.SetAgentMuted("planner", false); err != nil {
		t.Fatal(err)
	}
	// Emitted before SetAgentMuted returns: the last event is the state.
	d.ui.mu.Lock()
	var last MutedView
	for _, e := range d.ui.events {
		if e.name == string(EventMuted) {
			last = e.data.(MutedView)
		}
	}
	d.ui.mu.Unlock()
	if d.ui.count(string(EventMuted)) != 3 || !slices.Equal(last.Agents, []string{"agent 1"}) {
		t.Fatalf("%d muted events, the last %+v; want 3, the last [agent 1]", d.ui.count(string(EventMuted)), last)
	}
	close(release)
	x, _ = d.ui.wait(t, 60*time.Second, string(EventRun), 0, func(x any) bool { return x.(RunView).State != "running" })
	if !slices.ContainsFunc(x.(RunView).Transcript, func(e agents.Entry) bool {
		return e.Speaker == "agent 1" && e.Kind == agents.EntrySpeech && e.Text == msg
	}) {
		t.Fatalf("the muted agent's message is not in the transcript: %+v", x.(RunView).Transcript)
	}
	if got := v.speakers(); slices.Contains(got, "agent 1") {
		t.Fatalf("the voice was asked to speak for the muted agent: %v", got)
	}
}
