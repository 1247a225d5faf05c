package app

import (
	"sync"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// TestTaskBeforeTheWindowLoaded: a task the UI sends before Wails reported
// the window's page loaded (OnDomReady, where the session normally starts)
// starts the session itself and runs, instead of being refused with "the
// browser is not ready yet"; racing starts make one session; none starts
// once the window is closing.
func TestTaskBeforeTheWindowLoaded(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.Step{Reply: apptest.Done("nothing to do", true)})
	o, ui, _ := deskOptions(t, srv)
	a := New(o) // the window has not reported its page loaded: no session yet
	a.startup(t.Context())
	t.Cleanup(func() { a.stopSession(5 * time.Second) })

	id, err := a.StartRun("say hello", nil)
	if err != nil {
		t.Fatalf("a task before the window loaded: %v", err)
	}
	ui.wait(t, 20*time.Second, string(EventRun), 0, func(d any) bool {
		v, ok := d.(RunView)
		return ok && v.ID == id && v.State != "running"
	})

	first := a.session()
	var wg sync.WaitGroup
	got := make([]*session, 8)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = a.startSession() }()
	}
	wg.Wait()
	for i, s := range got {
		if s != first {
			t.Fatalf("start %d gave another session", i)
		}
	}

	lo, _, _ := deskOptions(t, srv)
	late := New(lo)
	late.stopSession(time.Second)
	if s := late.startSession(); s != nil {
		t.Fatal("a session started after the window began closing")
	}
}
