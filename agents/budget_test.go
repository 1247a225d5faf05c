package agents

// Budgets and the kill switch: what stops an agent or a whole run.

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"vroom/internal/modeltest"
	"vroom/internal/testkit"
)

func TestStepBudget(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, func(c *Config) { c.Budget.Steps = 3 })
	tr.srv.Then("planner", spawn("scroll forever"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("no", false))
	tr.srv.Script("executor", modeltest.Step{Times: -1, Reply: modeltest.Call("scroll", map[string]string{"direction": "down"})})
	res, _ := tr.Execute(context.Background(), "budget")
	if p := res.Procs[0]; p.State != ProcFailed || p.Steps != 3 || !strings.Contains(p.Summary, "step budget of 3") {
		t.Fatalf("%+v", p)
	}
}

func TestTokenBudgetKillsRun(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, func(c *Config) { c.Budget.Tokens = 2000 })
	tr.srv.Then("planner", spawn("scroll forever"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("no", false))
	tr.srv.Script("executor", modeltest.Step{Times: -1, Reply: modeltest.Call("scroll", map[string]string{"direction": "down"})})
	res, err := tr.Execute(context.Background(), "budget")
	var be *BudgetError
	if !errors.Is(err, ErrKilled) || !errors.As(err, &be) || be.Budget != "token" || !strings.Contains(err.Error(), "the token budget of 2000 tokens was used up") || res.Success {
		t.Fatalf("err %v result %+v", err, res)
	}
	if res.Procs[0].State != ProcKilled {
		t.Fatalf("%+v", res.Procs[0])
	}
}

func TestKillSwitchStopsEverything(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	tr.srv.Then("planner", spawn("a"), spawn("b"), modeltest.Call("wait", map[string]any{"mode": "all"}))
	tr.srv.Script("executor", modeltest.Step{Times: -1, Reply: modeltest.Slow(time.Minute, done("never", true))})
	go func() {
		for {
			ch := tr.srv.Changed()
			if len(tr.srv.Requests("executor")) == 2 && len(tr.srv.Requests("planner")) == 3 {
				tr.Kill("the user pressed stop")
				return
			}
			<-ch
		}
	}()
	start := time.Now()
	res, err := tr.Execute(context.Background(), "stop me")
	if !errors.Is(err, ErrKilled) || time.Since(start) > 10*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
	for _, p := range res.Procs {
		if p.State != ProcKilled {
			t.Fatalf("%+v", p)
		}
	}
}

func TestWallBudgetKillsRun(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	tr := newTestRun(t, func(c *Config) { c.Clock = clk; c.Budget.Wall = 5 * time.Minute })
	tr.srv.Then("planner", spawn("slow"), modeltest.Call("wait", map[string]any{"mode": "all"}))
	tr.srv.Script("executor", modeltest.Step{Times: -1, Reply: modeltest.Slow(time.Minute, done("never", true))})
	go func() {
		for {
			ch := tr.srv.Changed()
			if len(tr.srv.Requests("executor")) == 1 && len(tr.srv.Requests("planner")) == 2 {
				clk.Advance(5 * time.Minute)
				return
			}
			<-ch
		}
	}()
	_, err := tr.Execute(context.Background(), "slow")
	var be *BudgetError
	if !errors.Is(err, ErrKilled) || !errors.As(err, &be) || be.Budget != "time" || !strings.Contains(err.Error(), "the time budget of 5m0s was used up") {
		t.Fatalf("err %v", err)
	}
}

func TestCostBudgetKillsRun(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, func(c *Config) {
		c.Model.cfg.Prices = map[string]Price{"planner": {Prompt: 1000, Completion: 1000}} // $0.001 a token
		c.Budget.Cost = 0.5
	})
	tr.srv.Then("planner", modeltest.Call("speak", map[string]any{"text": "thinking aloud"}), done("x", true))
	_, err := tr.Execute(context.Background(), "expensive")
	var be *BudgetError
	if !errors.Is(err, ErrKilled) || !errors.As(err, &be) || be.Budget != "cost" || !strings.Contains(err.Error(), "the cost budget of $0.50 was used up") {
		t.Fatalf("err %v usage %+v", err, tr.Usage())
	}
}

// TestKillAfterParentEnded: the app closing cancels the run's parent
// context first; the kill that follows is still logged and stops every
// agent. A kill after the run's end does nothing.
func TestKillAfterParentEnded(t *testing.T) {
	t.Parallel()
	buf := &testkit.LockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	r := NewRun(ctx, Config{Tabs: newFakeTabs(), Log: NewRunLog(buf, nil)})
	cancel()
	r.Kill("Vroom is closing")
	r.Kill("twice")
	var kills []string
	for _, rec := range records(t, buf) {
		if rec.Event == LogKilled {
			kills = append(kills, rec.Text)
		}
	}
	if len(kills) != 1 || kills[0] != "Vroom is closing" {
		t.Fatalf("kills logged: %q", kills)
	}
}
