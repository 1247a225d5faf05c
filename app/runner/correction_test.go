package runner

import (
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// TestUserCorrection: a correction sent while both
// executors' model calls are in flight reaches each executor's next
// prompt and the planner's, marked as from the user; the executors follow
// it on the page and the planner spawns nothing more.
func TestUserCorrection(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	h := newHarness(t, nil)
	const correction = "no, add Rust instead"
	h.srv.Script("planner", modeltest.PlannerScript(
		map[string]any{"task": "add the skill Go", "url": s.URL + "/profile.html"},
		map[string]any{"task": "open the profile and wait for instructions", "url": s.URL + "/profile.html"}))
	var mu sync.Mutex
	arrived := 0
	sent := false
	h.srv.Script("executor",
		// After the correction: follow it (the first executor) or finish.
		modeltest.Step{Times: -1, Match: modeltest.MessageContains("", "PRIORITY INSTRUCTION FROM THE USER"), Func: func(r *modeltest.Request) modeltest.Reply {
			text, c := r.Text(), apptest.Calls(r)
			if !strings.Contains(modeltest.MessageText(r.Chat.Messages[0]), "add the skill Go") {
				return apptest.Done("heard the correction; nothing for me", true)
			}
			switch {
			case !strings.Contains(c, `"text":"Rust"`):
				return apptest.Call("type", "ref", modeltest.Ref(text, "textbox", "Skill"), "text", "Rust")
			case !strings.Contains(c, "click"):
				return apptest.Call("click", "ref", modeltest.Ref(text, "button", "Add skill"))
			}
			return apptest.Done("added Rust as the user asked", true)
		}},
		// Before: the second of the two first calls brings the correction;
		// both calls are held, so the correction arrives while they are in
		// flight.
		modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
			mu.Lock()
			arrived++
			if arrived == 2 && !sent {
				sent = true
				mu.Unlock()
				h.Room().UserSays(correction)
			} else {
				mu.Unlock()
			}
			return modeltest.Slow(time.Minute, apptest.Call("type", "ref", modeltest.Ref(r.Text(), "textbox", "Skill"), "text", "Go"))
		}},
	)
	res := h.execute(t, "add Go")
	if !res.Success || len(res.Procs) != 2 {
		t.Fatalf("%+v", res)
	}
	for _, agent := range []string{"agent 1", "agent 2"} {
		got := false
		for _, r := range h.srv.Requests("executor") {
			if strings.Contains(modeltest.MessageText(r.Chat.Messages[0]), "You are "+agent+",") &&
				strings.Contains(r.LastText(), "<user_correction priority=\"high\">\nPRIORITY INSTRUCTION FROM THE USER") && strings.Contains(r.LastText(), correction) {
				got = true
			}
		}
		if !got {
			t.Errorf("%s's next prompt lacks the correction", agent)
		}
	}
	heard := false
	for _, r := range h.srv.Requests("planner") {
		heard = heard || strings.Contains(r.Text(), "PRIORITY INSTRUCTION FROM THE USER (it overrides your task where they conflict): "+correction)
	}
	if !heard {
		t.Error("the planner never got the correction")
	}
	spawns := 0
	for _, r := range apptest.RunLog(t, h.log) {
		if r.Event == agents.LogSpawn {
			spawns++
		}
	}
	if spawns != 2 {
		t.Errorf("%d spawns", spawns)
	}
	s.State(func(s *apptest.Site) {
		if len(s.Skills) != 1 || s.Skills[0] != "Rust" {
			t.Fatalf("skills %v, want [Rust]", s.Skills)
		}
	})
}
