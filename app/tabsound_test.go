package app

import (
	"sync/atomic"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testkit"
)

// An agent's page is muted while it works; its tile's page sound toggle
// lets it play, and mutes it again.
func TestAgentTabSound(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	s := apptest.NewSite(t)
	var stop atomic.Bool
	d.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "read the desk", "url": s.URL + "/quote.html"}))
	d.srv.Script("executor", modeltest.Step{Times: -1, Func: func(*modeltest.Request) modeltest.Reply {
		if stop.Load() {
			return apptest.Done("read it", true)
		}
		return modeltest.Slow(100*time.Millisecond, modeltest.Call("read_page", map[string]any{}))
	}})
	t.Cleanup(func() { stop.Store(true) })
	if _, err := d.StartRun("read the desk", nil); err != nil {
		t.Fatal(err)
	}
	var pid int
	var tab string
	testkit.WaitFor(t, 30*time.Second, "the agent in its tab", func() bool {
		if v := d.Run(); v != nil && len(v.Procs) > 0 && v.Procs[0].Tab != "" {
			pid, tab = v.Procs[0].PID, v.Procs[0].Tab
			return true
		}
		return false
	})
	bt, err := testBrowser.Tab(tab)
	if err != nil {
		t.Fatal(err)
	}
	if !bt.Muted() {
		t.Fatal("an agent's page plays sound before the person turned it on")
	}
	if err := d.SetAgentTabSound(pid, true); err != nil {
		t.Fatal(err)
	}
	if bt.Muted() {
		t.Error("turned on, the agent's page is still muted")
	}
	if err := d.SetAgentTabSound(pid, false); err != nil {
		t.Fatal(err)
	}
	if !bt.Muted() {
		t.Error("turned off, the agent's page plays")
	}
	if err := d.SetAgentTabSound(pid+100, true); err == nil {
		t.Error("page sound of an agent that is not in the run succeeded")
	}
	stop.Store(true)
}
