package agents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"vroom/internal/modeltest"
)

// TestSpeakingInTurn is the room's first scenario: one executor says hello,
// the second replies "hello there" only after hearing hello, the third says
// "what's up" only after both — in that order. The same chain with four
// lines is the poem, one line per agent, with no time-to-live waits.
func TestSpeakingInTurn(t *testing.T) {
	t.Parallel()
	for name, lines := range map[string][]string{
		"hello":  {"hello", "hello there", "what's up"},
		"poem":   {"Four agents woke to greet the day,", "each one waiting for its say,", "they claimed the floor but never fought,", "and spoke in turn the lines they ought."},
		"single": {"just me"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr := newTestRun(t, nil)
			var tasks []string
			for i := range lines {
				tasks = append(tasks, fmt.Sprintf("line %d", i+1))
			}
			tr.srv.Script("planner", modeltest.PlannerTasks(tasks...))
			for i, line := range lines {
				i, line := i, line
				tr.srv.Script("executor", modeltest.Step{Times: -1, Match: modeltest.SystemContains(fmt.Sprintf("Your task: line %d", i+1)),
					Func: func(r *modeltest.Request) modeltest.Reply {
						last, _ := r.LastMessage()
						if strings.HasPrefix(last.Content, "said") {
							return done("said my line", true)
						}
						heard := r.Text()
						for j := 0; j < i; j++ {
							if !strings.Contains(heard, fmt.Sprintf("agent %d: %s", j+1, lines[j])) {
								// Keep working while listening: reading the page is
								// work; scrolling a page that does not move would be
								// a loop the detector rightly stops.
								return modeltest.Call("read_page", map[string]any{})
							}
						}
						return modeltest.Call("speak", map[string]any{"text": line})
					}})
			}
			start := time.Now()
			res := tr.execute(t, "take turns")
			if !res.Success {
				t.Fatalf("%+v", res)
			}
			var said []string
			for _, e := range tr.Room().Transcript() {
				if e.Kind == EntrySpeech {
					said = append(said, e.Speaker+": "+e.Text)
				}
			}
			if len(said) != len(lines) {
				t.Fatalf("said %q", said)
			}
			for i, line := range lines {
				if said[i] != fmt.Sprintf("agent %d: %s", i+1, line) {
					t.Fatalf("out of order: %q", said)
				}
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("took %v: something waited for a time-to-live", d)
			}
		})
	}
}

// TestUserCorrectionReachesEveryone: a correction spoken mid-run cancels
// the executor's in-flight call, which is re-issued with the correction;
// the planner's wait is cut short and its next prompt carries the
// correction, marked as from the user.
func TestUserCorrectionReachesEveryone(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	const correction = "no, the most recent repo"
	tr.srv.Script("planner", modeltest.PlannerTasks("find my most popular repo"))
	tr.srv.Script("executor",
		modeltest.Step{Match: modeltest.LastMessageContains("PRIORITY INSTRUCTION FROM THE USER"), Reply: done("most recent repo: vroom", true)},
		modeltest.Step{Func: func(r *modeltest.Request) modeltest.Reply {
			// The person speaks while this call is in flight.
			tr.Room().UserStarts()
			tr.Room().UserSays(correction)
			tr.Room().UserStops()
			// The reply would come late: the call is cancelled first.
			return modeltest.Slow(time.Minute, modeltest.Call("scroll", map[string]any{"direction": "down"}))
		}},
	)
	res := tr.execute(t, "find my most popular repo")
	if res.Procs[0].Summary != "most recent repo: vroom" || len(res.Procs) != 1 {
		t.Fatalf("%+v", res.Procs)
	}
	exec := tr.srv.Requests("executor")
	if len(exec) != 2 {
		t.Fatalf("%d executor requests", len(exec))
	}
	last, _ := exec[1].LastMessage()
	if last.Role != openai.ChatMessageRoleUser || !strings.Contains(last.Content, "<user_correction priority=\"high\">\nPRIORITY INSTRUCTION FROM THE USER") || !strings.Contains(last.Content, correction) {
		t.Fatalf("re-issued call lacks the correction: %+v", last)
	}
	heard := false
	for _, r := range tr.srv.Requests("planner") {
		if strings.Contains(r.Text(), "PRIORITY INSTRUCTION FROM THE USER (it overrides your task where they conflict): "+correction) {
			heard = true
		}
	}
	if !heard {
		t.Fatal("the planner never got the correction")
	}
	if n := strings.Count(fmt.Sprint(records(t, tr.log)), "call_reissued"); n < 1 {
		t.Fatal("no re-issued call logged")
	}
}

// TestUniqueSkills: two executors add skills to one profile; each hears
// what the other said through its tool results and picks another skill.
func TestUniqueSkills(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	profile := map[string]int{}
	var site = make(chan struct{}, 1)
	site <- struct{}{}
	tr.tabs.page = func(ft *fakeTab) {
		ft.addControl(&fakeControl{ref: "e1", role: "textbox", name: "Skill"})
		ft.addControl(&fakeControl{ref: "e2", role: "button", name: "Add skill", click: func(t *fakeTab) string {
			<-site
			profile[t.values["e1"]]++
			site <- struct{}{}
			return "skill added: " + t.values["e1"]
		}})
	}
	tr.srv.Script("planner", modeltest.PlannerTasks(
		"add one skill from [Python, Go, Kubernetes] that no other agent added; say which",
		"add one skill from [Python, Go, Kubernetes] that no other agent added; say which; listen first"))
	tr.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		text := r.Text()
		last, _ := r.LastMessage()
		switch {
		case strings.HasPrefix(last.Content, "said"):
			return done("added", true)
		case strings.Contains(text, "skill added: "):
			// Added: tell the others, again if the floor was busy.
			skill := text[strings.Index(text, "skill added: ")+len("skill added: "):]
			skill, _, _ = strings.Cut(skill, "\n")
			return modeltest.Call("speak", map[string]any{"text": "I added " + skill})
		case strings.Contains(last.Content, "value changed"):
			return modeltest.Call("click", map[string]any{"ref": "e2"})
		case strings.Contains(r.Chat.Messages[0].Content, "listen first") && !strings.Contains(text, ": I added"):
			return modeltest.Call("scroll", map[string]any{"direction": "down"}) // working, listening
		}
		// Choose a skill nobody said they added.
		for _, s := range []string{"Python", "Go", "Kubernetes"} {
			if !strings.Contains(text, "I added "+s) {
				return modeltest.Call("type", map[string]any{"ref": "e1", "text": s})
			}
		}
		return done("nothing left to add", false)
	}})
	res := tr.execute(t, "add two unique skills")
	if !res.Success {
		t.Fatalf("%+v", res)
	}
	for s, n := range profile {
		if n > 1 {
			t.Fatalf("duplicate skill %s: %v", s, profile)
		}
	}
	if len(profile) != 2 {
		t.Fatalf("profile %v", profile)
	}
}

// TestModelFailureEndsRunClearly: three 500s give a clear failure, not a
// hang.
func TestModelFailureEndsRunClearly(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	tr.srv.Then("planner", modeltest.ServerError(), modeltest.ServerError(), modeltest.ServerError(), modeltest.ServerError())
	start := time.Now()
	res, err := tr.Execute(context.Background(), "anything")
	if !errors.Is(err, ErrModel) || res.Success || time.Since(start) > 10*time.Second {
		t.Fatalf("err %v result %+v after %v", err, res, time.Since(start))
	}
	if !strings.Contains(res.Summary, "500") {
		t.Fatalf("summary %q does not say what failed", res.Summary)
	}
}

// TestRateLimitedThenSucceeds: a 429 is waited out per Retry-After
// (through the injected clock) and the run goes on.
func TestRateLimitedThenSucceeds(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	tr := newTestRun(t, func(c *Config) {
		c.Model = NewModel(ModelConfig{BaseURL: c.Model.cfg.BaseURL, Models: c.Model.cfg.Models, Clock: clk})
	})
	tr.srv.Then("planner", modeltest.RateLimited(7*time.Second), done("fine", true))
	go func() {
		p := clk.waitTimers(t, 1)
		if p[0] != 7*time.Second {
			t.Errorf("waiting %v, want 7s", p[0])
		}
		clk.Advance(p[0])
	}()
	res := tr.execute(t, "x")
	if !res.Success {
		t.Fatalf("%+v", res)
	}
}
