package agents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"vroom/internal/modeltest"
)

// takeoverPage is a form with an email field and a Save button.
func takeoverPage(ft *fakeTab) {
	ft.addControl(&fakeControl{ref: "e1", role: "textbox", name: "Email"})
	ft.addControl(&fakeControl{ref: "e2", role: "button", name: "Save", click: func(t *fakeTab) string { return "saved" }})
}

func waitState(t *testing.T, r *Run, pid int, want ProcState) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sub := r.Room().Subscribe(ctx)
	for {
		for _, p := range r.Procs() {
			if p.PID == pid && p.State == want {
				return
			}
		}
		select {
		case <-sub.C():
		case <-ctx.Done():
			t.Fatalf("process %d never reached %s: %+v", pid, want, r.Procs())
		}
	}
}

// TestTakeOverDuringModelCall: the person takes the tab while the model is
// deciding. The action it decides on is not performed (it was chosen for a
// page the person then changed); its result is the person's note and a
// fresh view, and the agent goes on from there.
func TestTakeOverDuringModelCall(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	tr.tabs.page = takeoverPage
	inCall, decide := make(chan struct{}), make(chan struct{})
	var second atomic.Value
	tr.srv.Script("executor",
		modeltest.Step{Func: func(r *modeltest.Request) modeltest.Reply {
			close(inCall)
			<-decide
			return modeltest.Call("type", map[string]any{"ref": "e1", "text": "agent@example.com"})
		}},
		modeltest.Step{Func: func(r *modeltest.Request) modeltest.Reply {
			second.Store(r.LastText())
			return done("saved with the person's email", true)
		}},
	)
	ctx := context.Background()
	p, err := tr.Spawn(ctx, "fill in the email and save", "", "http://form.test/")
	if err != nil {
		t.Fatal(err)
	}
	<-inCall
	info, err := tr.TakeOver(ctx, p.PID)
	if err != nil || info.State != ProcTakenOver {
		t.Fatalf("take over: %v %+v", err, info)
	}
	close(decide)
	ft := tr.tabs.tab("tab-1")
	// The person types while the agent waits.
	if _, err := ft.Act(ctx, Action{Kind: ActType, Ref: "e1", Text: "person@example.com"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.HandBack(p.PID, "I typed my own email; just press Save"); err != nil {
		t.Fatal(err)
	}
	w, err := tr.Wait(ctx, []int{p.PID}, true, 10*time.Second)
	if err != nil || len(w.Finished) != 1 || !w.Finished[0].Success {
		t.Fatalf("%v %+v", err, w)
	}
	for _, a := range ft.actions() {
		if a.Text == "agent@example.com" {
			t.Fatalf("the agent typed over the person after the hand-back: %+v\n%s", ft.actions(), tr.log.String())
		}
	}
	got, _ := second.Load().(string)
	for _, want := range []string{"not performed", "<user_correction>\nI typed my own email; just press Save", "person@example.com"} {
		if !strings.Contains(got, want) {
			t.Errorf("the next tool result lacks %q:\n%s", want, got)
		}
	}
	var events []string
	for _, rec := range records(t, tr.log) {
		if rec.Event == LogTakeOver || rec.Event == LogHandBack || rec.Event == LogSkipped {
			events = append(events, string(rec.Event))
		}
	}
	if strings.Join(events, ",") != "take_over,skipped,hand_back" && strings.Join(events, ",") != "take_over,hand_back,skipped" {
		t.Errorf("log events: %v", events)
	}
}

// TestTakeOverWaitsForTheAction: taken over mid-action, the take-over
// returns only when the action has ended, and no model call is made until
// the hand-back, whose note joins the tool result the model reads next.
func TestTakeOverWaitsForTheAction(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	acting, finish := make(chan struct{}), make(chan struct{})
	tr.tabs.page = func(ft *fakeTab) {
		takeoverPage(ft)
		ft.controls[1].click = func(t *fakeTab) string {
			close(acting)
			<-finish
			return "saved"
		}
	}
	var handedBack atomic.Bool
	var second atomic.Value
	tr.srv.Script("executor",
		modeltest.Step{Reply: modeltest.Call("click", map[string]any{"ref": "e2"})},
		modeltest.Step{Func: func(r *modeltest.Request) modeltest.Reply {
			if !handedBack.Load() {
				second.Store("called before the hand-back")
			} else {
				second.Store(r.LastText())
			}
			return done("saved", true)
		}},
	)
	ctx := context.Background()
	p, err := tr.Spawn(ctx, "save", "", "http://form.test/")
	if err != nil {
		t.Fatal(err)
	}
	<-acting
	took := make(chan error, 1)
	go func() {
		_, err := tr.TakeOver(ctx, p.PID)
		took <- err
	}()
	waitState(t, tr.Run, p.PID, ProcTakenOver)
	select {
	case err := <-took:
		t.Fatalf("take over returned while the click was still running: %v", err)
	default:
	}
	close(finish)
	if err := <-took; err != nil {
		t.Fatal(err)
	}
	if _, err := tr.HandBack(p.PID+1, "x"); !errors.Is(err, ErrNoProcess) {
		t.Errorf("hand back of an unknown process: %v", err)
	}
	handedBack.Store(true)
	if _, err := tr.HandBack(p.PID, "carry on"); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.HandBack(p.PID, "again"); !errors.Is(err, ErrNotTakenOver) {
		t.Errorf("second hand back: %v", err)
	}
	w, err := tr.Wait(ctx, []int{p.PID}, true, 10*time.Second)
	if err != nil || len(w.Finished) != 1 || !w.Finished[0].Success {
		t.Fatalf("%v %+v", err, w)
	}
	got, _ := second.Load().(string)
	if !strings.Contains(got, "saved") || !strings.Contains(got, "<user_correction>\ncarry on") {
		t.Errorf("the next model call saw:\n%s", got)
	}
}

// TestKillWhileTakenOver: the kill switch ends a paused executor.
func TestKillWhileTakenOver(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	tr.tabs.page = takeoverPage
	inCall, decide := make(chan struct{}), make(chan struct{})
	tr.srv.Script("executor", modeltest.Step{Func: func(r *modeltest.Request) modeltest.Reply {
		close(inCall)
		<-decide
		return modeltest.Call("click", map[string]any{"ref": "e2"})
	}})
	ctx := context.Background()
	p, err := tr.Spawn(ctx, "save", "", "http://form.test/")
	if err != nil {
		t.Fatal(err)
	}
	<-inCall
	if _, err := tr.TakeOver(ctx, p.PID); err != nil {
		t.Fatal(err)
	}
	close(decide)
	tr.Kill("the person stopped the run")
	w, err := tr.Wait(ctx, []int{p.PID}, true, 10*time.Second)
	if err != nil || len(w.Finished) != 1 || w.Finished[0].State != ProcKilled {
		t.Fatalf("%v %+v", err, w)
	}
	if n := len(tr.tabs.tab("tab-1").actions()); n != 0 {
		t.Errorf("the killed agent acted %d times", n)
	}
}

// TestReassignTellsTheWaiterWhereTheWorkWent: the person drops a tab on a
// running agent's tile. A successor takes the task up in that tab (even at
// the running limit, since it replaces the agent), and a wait on the old
// PID reports it moved, naming the new PID, rather than that it failed.
func TestReassignTellsTheWaiterWhereTheWorkWent(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, func(c *Config) { c.MaxAgents = 1 })
	tr.tabs.page = takeoverPage
	mine := newFakeTab("user-tab", "http://form.test/mine")
	takeoverPage(mine)
	tr.tabs.put(mine)
	tr.srv.Script("executor",
		modeltest.Step{Match: modeltest.MessageContains("user", "form.test/mine"), Reply: done("saved in the person's tab", true)},
		modeltest.Step{Times: -1, Reply: modeltest.Slow(20*time.Millisecond, modeltest.Call("read_page", map[string]any{}))},
	)
	ctx := context.Background()
	p, err := tr.Spawn(ctx, "save the form", "", "http://form.test/")
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan WaitResult, 1)
	go func() {
		w, _ := tr.Wait(ctx, []int{p.PID}, true, 10*time.Second)
		waiting <- w
	}()
	next, err := tr.Reassign(ctx, p.PID, "user-tab")
	if err != nil || next.PID == p.PID || next.Tab != "user-tab" || next.Task != "save the form" {
		t.Fatalf("reassign: %v %+v", err, next)
	}
	w := <-waiting
	if len(w.Finished) != 1 || w.Finished[0].State != ProcKilled || !strings.Contains(w.Finished[0].Summary, fmt.Sprintf("wait for pid %d", next.PID)) {
		t.Fatalf("the waiter saw %+v", w)
	}
	w2, err := tr.Wait(ctx, []int{next.PID}, true, 10*time.Second)
	if err != nil || len(w2.Finished) != 1 || !w2.Finished[0].Success {
		t.Fatalf("%v %+v", err, w2)
	}
	if _, err := tr.Reassign(ctx, next.PID, "user-tab"); !errors.Is(err, ErrNoProcess) {
		t.Errorf("reassigning a finished agent: %v", err)
	}
}

// TestRetryWaitsForTheTabsRelease: a killed agent is reported finished
// before its executor has unwound and let go of its tab; a retry spawned
// in that tab at once waits for the release instead of failing on the
// lease (the CI flake of app's TestRetryOnSameTab). The spawn itself
// returns at once: the waiting is the retry's first act.
func TestRetryWaitsForTheTabsRelease(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	tr.tabs.page = takeoverPage
	letGo := make(chan struct{})
	tr.tabs.releasing = func() { <-letGo }
	tr.srv.Script("executor",
		modeltest.Step{Match: modeltest.SystemContains("retry"), Reply: done("saved on the retry", true)},
		modeltest.Step{Times: -1, Reply: modeltest.Slow(20*time.Millisecond, modeltest.Call("read_page", map[string]any{}))},
	)
	ctx := context.Background()
	p, err := tr.Spawn(ctx, "save", "", "http://form.test/")
	if err != nil {
		t.Fatal(err)
	}
	tab := waitTab(t, tr.Run, p.PID)
	if err := tr.killProc(p.PID); err != nil {
		t.Fatal(err)
	}
	// The spawn returns while the tab is still held (letGo is open).
	retry, err := tr.Spawn(ctx, "retry: save", tab, "")
	if err != nil || retry.Tab != tab || retry.State != ProcRunning {
		t.Fatalf("retry: %v %+v", err, retry)
	}
	close(letGo)
	w, err := tr.Wait(ctx, []int{retry.PID}, true, 10*time.Second)
	if err != nil || len(w.Finished) != 1 || !w.Finished[0].Success {
		t.Fatalf("retry in the released tab: %v %+v", err, w)
	}
}

// TestSpawnReturnsAtOnceAndOpenFailsInWait: spawn does not wait for the
// tab; a tab that cannot be had ends that executor as failed, and wait
// reports it with the error in its summary.
func TestSpawnReturnsAtOnceAndOpenFailsInWait(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	held := newFakeTab("held-tab", "http://form.test/held")
	tr.tabs.put(held)
	if _, err := tr.tabs.Attach(context.Background(), "agent 9 of another run", "held-tab"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := tr.Spawn(ctx, "save", "held-tab", "")
	if err != nil || p.State != ProcRunning {
		t.Fatalf("spawn: %v %+v", err, p)
	}
	w, err := tr.Wait(ctx, []int{p.PID}, true, 10*time.Second)
	if err != nil || len(w.Finished) != 1 {
		t.Fatalf("%v %+v", err, w)
	}
	f := w.Finished[0]
	if f.State != ProcFailed || !strings.Contains(f.Summary, "agent 9 of another run") || f.Tab != "held-tab" {
		t.Fatalf("the waiter saw %+v", f)
	}
	var logged bool
	for _, rec := range records(t, tr.log) {
		logged = logged || (rec.Event == LogSpawnFailed && rec.PID == p.PID)
	}
	if !logged {
		t.Error("the failed open was not logged")
	}
}

// waitTab waits until process pid has its tab and returns the tab's id.
func waitTab(t *testing.T, r *Run, pid int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sub := r.Room().Subscribe(ctx)
	for {
		for _, p := range r.Procs() {
			if p.PID == pid && p.Tab != "" {
				return p.Tab
			}
		}
		select {
		case <-sub.C():
		case <-ctx.Done():
			t.Fatalf("process %d never got a tab: %+v", pid, r.Procs())
		}
	}
}
