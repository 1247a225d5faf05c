package agents

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"vroom/internal/modeltest"
)

// goneSearchTabs lend fake tabs whose searches and waits find the tab gone,
// as app's adapter reports a tab closed under an observe{query} or a wait.
type goneSearchTabs struct{ *fakeTabs }

func (p goneSearchTabs) Open(ctx context.Context, owner, url string) (Tab, error) {
	t, err := p.fakeTabs.Open(ctx, owner, url)
	if err != nil {
		return nil, err
	}
	return goneSearchTab{t}, nil
}

func (p goneSearchTabs) Release(t Tab, owner string) {
	p.fakeTabs.Release(t.(goneSearchTab).Tab, owner)
}

type goneSearchTab struct{ Tab }

var errSearchGone = fmt.Errorf("%w (tab closed)", ErrTabGone)

func (goneSearchTab) Find(context.Context, FindOptions) (Observation, error) {
	return Observation{}, errSearchGone
}

func (goneSearchTab) Wait(context.Context, WaitFor, time.Duration) (WaitOutcome, error) {
	return WaitOutcome{}, errSearchGone
}

// A tab gone under a search (observe with a query) or a wait ends its agent
// as any other call does: failed, and no model call after it.
func TestFaultTabGoneMidFindAndWait(t *testing.T) {
	for name, call := range map[string]modeltest.Reply{
		"find": modeltest.Call("observe", map[string]any{"query": "Go"}),
		"wait": modeltest.Call("wait", map[string]any{"text": "ready"}),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ft := newFakeTabs()
			tr := newTestRun(t, func(c *Config) { c.Tabs = goneSearchTabs{ft} })
			tr.tabs = ft
			tr.srv.Then("planner", spawn("x"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("gave up", false))
			tr.srv.Then("executor", call, done("never", true))
			res, err, _ := executeFault(t, tr, "x")
			if err != nil {
				t.Fatalf("the run itself failed: %v", err)
			}
			if n := len(tr.srv.Requests("executor")); n != 1 {
				t.Errorf("the executor made %d model calls; 1 expected, none after its tab was gone", n)
			}
			if p := res.Procs[0]; p.State != ProcFailed || !strings.Contains(p.Summary, "its tab is gone") {
				t.Fatalf("process %+v", p)
			}
		})
	}
}
