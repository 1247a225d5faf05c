package app

import (
	"sync"
	"testing"
	"time"

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
	srv.Script("planner", modeltest.Step{Reply: done("nothing to do", true)})
	o, ui, _ := deskOptions(t, srv)
	a := New(o) // the window has not reported its page loaded: no session yet
	a.startup(t.Context())
	t.Cleanup(func() { a.stopSession(5 * time.Second) })

	id, err := a.StartRun("say hello", nil)
	if err != nil {
		t.Fatalf("a task before the window loaded: %v", err)
	}
	ui.wait(t, 20*time.Second, EventRun, 0, func(d any) bool {
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

// TestStartNoticeNamesTheTitle: the transcript names an agent's new tab by
// the page's title and host once it has loaded, never by its target id
// and not by the host alone because the title came a moment late.
func TestStartNoticeNamesTheTitle(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	h := newHarness(t, nil)
	h.srv.Script("planner", plannerScript(map[string]any{"task": "read the quote page", "url": s.URL + "/quote.html"}))
	h.srv.Script("executor", modeltest.Step{Times: -1, Reply: done("read it", true)})
	h.execute(t, "read the quote page")
	var notices []string
	for _, e := range h.Room().Transcript() {
		notices = append(notices, e.Text)
	}
	want := "agent 1 started on Quote desk (127.0.0.1): read the quote page"
	for _, n := range notices {
		if n == want {
			return
		}
	}
	t.Fatalf("no %q in the transcript: %q", want, notices)
}
