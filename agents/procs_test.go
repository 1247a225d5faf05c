package agents

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/internal/modeltest"
	"vroom/internal/testkit"
)

func TestWaitAnyAllTimeout(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	pt := newProcTable(4, 10, clk, nil)
	var ps []*proc
	for _, task := range []string{"a", "b", "c"} {
		p, err := pt.add(task, "", func() {}, false)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	ctx := context.Background()

	// Timeout: nothing finishes.
	got := make(chan WaitResult, 1)
	go func() {
		res, err := pt.wait(ctx, nil, false, 30*time.Second, nil)
		if err != nil {
			t.Error(err)
		}
		got <- res
	}()
	clk.waitTimers(t, 1)
	clk.Advance(30 * time.Second)
	if res := <-got; !res.TimedOut || len(res.Finished) != 0 || len(res.Running) != 3 {
		t.Fatalf("timeout: %+v", res)
	}

	// any: the first to finish, reported once.
	go func() {
		res, _ := pt.wait(ctx, nil, false, 0, nil)
		got <- res
	}()
	pt.finish(ps[1], ProcDone, "b done", true)
	if res := <-got; len(res.Finished) != 1 || res.Finished[0].PID != 2 || !res.Finished[0].Success {
		t.Fatalf("any: %+v", res)
	}
	// all on explicit pids, one of them already reported.
	go func() {
		res, _ := pt.wait(ctx, []int{1, 2}, true, 0, nil)
		got <- res
	}()
	pt.finish(ps[0], ProcFailed, "a failed", true)
	res := <-got
	if len(res.Finished) != 2 || len(res.Running) != 0 || res.Finished[0].Success {
		t.Fatalf("all: %+v", res)
	}
	// A correction interrupts.
	interrupt := make(chan struct{})
	go func() {
		res, _ := pt.wait(ctx, nil, true, 0, interrupt)
		got <- res
	}()
	close(interrupt)
	if res := <-got; !res.Interrupted || len(res.Running) != 1 {
		t.Fatalf("interrupted: %+v", res)
	}
	if _, err := pt.wait(ctx, []int{99}, false, 0, nil); !errors.Is(err, ErrNoProcess) {
		t.Fatalf("unknown pid: %v", err)
	}
	// A kill is not overwritten by the failure it causes.
	if err := pt.kill(3); err != nil {
		t.Fatal(err)
	}
	pt.finish(ps[2], ProcFailed, "context canceled", false)
	if l := pt.list(); l[2].State != ProcKilled {
		t.Fatalf("%+v", l[2])
	}
}

// TestParallelExecutors: three sub-tasks run at once — each executor's
// first model call waits until all three are in theirs, which serial
// executors would never reach — and their steps interleave in the run log.
// No time is compared: the machine may be loaded.
func TestParallelExecutors(t *testing.T) {
	t.Parallel()
	const delay = 50 * time.Millisecond // model time dominates, as with a real model
	tasks := []string{"site one", "site two", "site three"}
	var arrived sync.WaitGroup
	arrived.Add(len(tasks))
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	tr := newTestRun(t, nil)
	tr.srv.Script("planner", modeltest.PlannerTasks(tasks...))
	for _, task := range tasks {
		tr.srv.Script("executor", modeltest.Step{Times: -1, Match: modeltest.SystemContains("Your task: " + task),
			Func: func(r *modeltest.Request) modeltest.Reply {
				switch n := r.ToolResults(); {
				case n == 0:
					arrived.Done()
					select {
					case <-all:
					case <-time.After(30 * time.Second):
						return done(task+": the others never started", false)
					}
				case n >= 3:
					return modeltest.Slow(delay, done(task+" finished", true))
				}
				return modeltest.Slow(delay, modeltest.Call("scroll", map[string]any{"direction": "down"}))
			}})
	}
	res := tr.execute(t, "three sites")
	if !res.Success || len(res.Procs) != 3 {
		t.Fatalf("%+v", res)
	}
	for _, p := range res.Procs {
		if !p.Success {
			t.Fatalf("not parallel: %+v", p)
		}
	}
	// Interleaving: the steps in log order are not grouped by agent.
	var order []int
	for _, r := range records(t, tr.log) {
		if r.Event == LogTool {
			order = append(order, r.PID)
		}
	}
	switches := 0
	for i := 1; i < len(order); i++ {
		if order[i] != order[i-1] {
			switches++
		}
	}
	if len(order) != 9 || switches < 4 {
		t.Fatalf("steps by pid in log order %v: not interleaved", order)
	}
}

func TestRoomSpeakVoiceFailureFallsBackToText(t *testing.T) {
	t.Parallel()
	var buf testkit.LockedBuffer
	clk := newFakeClock()
	r := newRoom(roomConfig{Clock: clk, Voice: failingVoice{}, Log: NewRunLog(&buf, nil)})
	e, err := r.Speak(context.Background(), "agent 1", "hello")
	if err != nil || e.Text != "hello" {
		t.Fatalf("%v %+v", err, e)
	}
	if s := r.floor.State(); s.Speaker != "agent 1" {
		t.Fatalf("text-only fallback does not hold the floor: %+v", s)
	}
	clk.Advance(r.floor.ReadingTime("hello"))
	if !r.floor.State().Free() {
		t.Fatal("a failed voice kept the floor past the reading time")
	}
	var events []string
	for _, rec := range records(t, &buf) {
		events = append(events, string(rec.Event))
	}
	sort.Strings(events)
	if !strings.Contains(strings.Join(events, " "), string(LogSpeechFailed)) {
		t.Fatalf("events %v", events)
	}
}

type failingVoice struct{}

func (failingVoice) Say(ctx context.Context, speaker, text string) (Utterance, error) {
	return nil, errors.New("no output device")
}

// hangingVoice never produces audio until its context ends.
type hangingVoice struct{ called chan struct{} }

func (v hangingVoice) Say(ctx context.Context, speaker, text string) (Utterance, error) {
	close(v.called)
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestRoomClaimWithoutSpeechExpires(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	v := hangingVoice{called: make(chan struct{})}
	r := newRoom(roomConfig{Clock: clk, Voice: v})
	done := make(chan error, 1)
	go func() {
		_, err := r.Speak(context.Background(), "agent 1", "hello")
		done <- err
	}()
	<-v.called
	if _, err := r.floor.Claim("agent 2"); !errors.Is(err, errFloorBusy) {
		t.Fatalf("floor not held while the speech is being made: %v", err)
	}
	clk.Advance(10 * time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !r.floor.State().Free() {
		t.Fatal("claim did not expire")
	}
}
