package runner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testkit"
)

// TestModelFaults: the model misbehaving in the ways real
// ones do, against a real page.
func TestModelFaults(t *testing.T) {
	t.Parallel()
	t.Run("rate-limited", faultRateLimited)
	t.Run("server-errors", faultServerErrors)
	t.Run("malformed-then-repaired", faultMalformedRepaired)
	t.Run("prose-nudged", faultProseNudged)
}

// A 429 with Retry-After is retried, not before the time it names.
func faultRateLimited(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.srv.Then("planner", modeltest.RateLimited(time.Second), apptest.Done("fine", true))
	res := h.execute(t, "x")
	reqs := h.srv.Requests("planner")
	if !res.Success || len(reqs) != 2 {
		t.Fatalf("%+v, %d requests", res, len(reqs))
	}
	if gap := reqs[1].At.Sub(reqs[0].At); gap < time.Second {
		t.Fatalf("retried after %v, before Retry-After's 1s", gap)
	}
}

// Repeated 500s fail the run fast, with the status in its summary.
func faultServerErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	// Three 500s with two retries is a clear failure, fast.
	srv := h.srv
	run := agents.NewRun(context.Background(), agents.Config{
		Model: agents.NewModel(agents.ModelConfig{BaseURL: srv.URL, Models: map[agents.Role]string{agents.RolePlanner: "planner", agents.RoleExecutor: "executor"},
			MaxRetries: 2, Backoff: time.Millisecond}),
		Tabs: h.tabs,
	})
	srv.Then("planner", modeltest.ServerError(), modeltest.ServerError(), modeltest.ServerError())
	start := time.Now()
	res, err := run.Execute(context.Background(), "anything")
	if !errors.Is(err, agents.ErrModel) || res.Success || !strings.Contains(res.Summary, "500") || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v, result %+v after %v", err, res, time.Since(start))
	}
	if n := len(srv.Requests("planner")); n != 3 {
		t.Fatalf("%d attempts", n)
	}
}

// Arguments cut off mid-JSON are explained once, and the repaired call
// acts on the page.
func faultMalformedRepaired(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	h := newHarness(t, nil)
	h.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "get a quote", "url": s.URL + "/quote.html"}))
	h.srv.Script("executor",
		modeltest.Step{Match: modeltest.ToolResults(0), Reply: modeltest.MalformedArgs("click", `{"ref": "e`)},
		modeltest.Step{Match: modeltest.ToolResults(1), Func: func(r *modeltest.Request) modeltest.Reply {
			if !strings.Contains(r.LastText(), "cut off") {
				return apptest.Done("not told what was wrong: "+r.LastText(), false)
			}
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Get quote"))
		}},
		modeltest.Step{Match: modeltest.ToolResults(2), Reply: apptest.Done("clicked", true)},
	)
	res := h.execute(t, "quote")
	if !res.Success {
		t.Fatalf("%+v", res)
	}
	testkit.WaitFor(t, 5*time.Second, "the quote request", func() bool {
		var n int
		s.State(func(s *apptest.Site) { n = s.Quotes })
		return n == 1
	})
}

// Prose instead of a tool call is nudged, and the next reply is a call.
func faultProseNudged(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	h := newHarness(t, nil)
	h.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "get a quote", "url": s.URL + "/quote.html"}))
	h.srv.Script("executor",
		modeltest.Step{Times: 2, Match: modeltest.ToolResults(0), Func: func(r *modeltest.Request) modeltest.Reply {
			if strings.Contains(r.LastText(), "only tool calls") {
				return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Get quote"))
			}
			return modeltest.Text("Sure! I will click the Get quote button now.")
		}},
		modeltest.Step{Match: modeltest.ToolResults(1), Reply: apptest.Done("clicked", true)},
	)
	res := h.execute(t, "quote")
	if !res.Success {
		t.Fatalf("%+v", res)
	}
	if n := len(h.srv.Requests("executor")); n != 3 {
		t.Fatalf("%d executor requests, want 3 (prose, nudged call, done)", n)
	}
	s.State(func(s *apptest.Site) {
		if s.Quotes != 1 {
			t.Fatalf("%d quotes", s.Quotes)
		}
	})
}
