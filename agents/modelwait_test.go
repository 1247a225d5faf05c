package agents

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/internal/modeltest"
)

// boundedModel is a client with short stall bounds, so a silent server is
// a fault within a second of the test's time.
func boundedModel(s *modeltest.Server, edit func(*ModelConfig)) *Model {
	cfg := ModelConfig{BaseURL: s.URL, Models: map[Role]string{RoleExecutor: "executor", RolePlanner: "planner"},
		Backoff: time.Millisecond, FirstByteTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond,
		SlowNotice: 100 * time.Millisecond}
	if edit != nil {
		edit(&cfg)
	}
	return NewModel(cfg)
}

// waits records what a call told of its long waits.
type waits struct {
	mu  sync.Mutex
	got []ModelWait
}

func (w *waits) add(m ModelWait) { w.mu.Lock(); w.got = append(w.got, m); w.mu.Unlock() }

func (w *waits) all() []ModelWait {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]ModelWait(nil), w.got...)
}

func (w *waits) call(role Role) modelCall {
	c := userCall(role, "hello")
	c.Agent, c.Progress = string(role), w.add
	return c
}

// A server that accepts and never answers is a stall within its bound,
// retried once, then a fault that ends the run; the person is told while
// it lasts.
func TestModelServerNeverAnswers(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("planner", modeltest.Slow(time.Hour, modeltest.Text("late")), modeltest.Slow(time.Hour, modeltest.Text("late")))
	var w waits
	began := time.Now()
	_, err := boundedModel(s, nil).complete(context.Background(), w.call(RolePlanner))
	took := time.Since(began)
	var f *ModelFault
	if !errors.As(err, &f) || !errors.Is(err, ErrModelStalled) || f.Attempts != 2 || !runFault(err) {
		t.Fatalf("err %v: want a stalled-server fault after 2 attempts that ends the run", err)
	}
	if !strings.Contains(err.Error(), "no first byte of a reply within 0.3 s") {
		t.Errorf("err %q does not say what the server did not send", err)
	}
	if took > 3*time.Second {
		t.Errorf("took %v, want about two 0.3 s bounds", took)
	}
	got := w.all()
	if len(got) < 2 || !strings.Contains(got[0].String(), "no answer for planner yet") || !got[len(got)-1].Done {
		t.Fatalf("told %+v: want a slow notice, then the end of the wait", got)
	}
	if end := got[len(got)-1].String(); !strings.Contains(end, "gave up on planner") {
		t.Errorf("the end of a failed wait reads %q: it must not say the server answered", end)
	}
}

// A stream that stops mid-reply is retried, and the retry's answer is
// the reply.
func TestModelStreamStopsMidReply(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("executor", modeltest.Stalled(3, modeltest.Text("a long answer that never ends")), modeltest.Text("whole"))
	r, err := boundedModel(s, nil).complete(context.Background(), userCall(RoleExecutor, "hello"))
	if err != nil || r.Content != "whole" || r.Attempts != 2 {
		t.Fatalf("reply %q after %d attempts, %v: want the retry's whole answer", r.Content, r.Attempts, err)
	}
}

// A Retry-After longer than Vroom waits is the server's refusal, said at
// once with how long it asked for, not an hour of silence.
func TestModelRetryAfterTooLong(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("planner", modeltest.RateLimited(time.Hour), modeltest.Text("never asked"))
	began := time.Now()
	_, err := boundedModel(s, nil).complete(context.Background(), userCall(RolePlanner, "hello"))
	if !errors.Is(err, ErrModelBusy) || !runFault(err) {
		t.Fatalf("err %v: want ErrModelBusy, ending the run", err)
	}
	for _, want := range []string{"1h0m0s", "longer than the 1m0s Vroom waits", "HTTP 429"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err %q lacks %q", err, want)
		}
	}
	if took := time.Since(began); took > 2*time.Second {
		t.Errorf("took %v to refuse", took)
	}
	if n := len(s.Requests("planner")); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// A retry's wait long enough to notice is told with the attempt it
// precedes and the server's reason.
func TestModelRetryWaitIsTold(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("executor", modeltest.RateLimited(time.Second), modeltest.Text("ok"))
	var w waits
	r, err := boundedModel(s, nil).complete(context.Background(), w.call(RoleExecutor))
	if err != nil || r.Content != "ok" {
		t.Fatalf("reply %q, %v", r.Content, err)
	}
	got := w.all()
	if len(got) != 2 || got[0].String() != "model server slow: waiting 1.0 s for executor, retry 1/3 (HTTP 429)" || !got[1].Done {
		t.Fatalf("told %q", got)
	}
}

// In a run, a stalled server ends the run with the fault, and the room and
// the log carry the notices.
func TestRunOnStalledServer(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	srv.Then("planner", modeltest.Slow(time.Hour, modeltest.Text("late")), modeltest.Slow(time.Hour, modeltest.Text("late")))
	var log strings.Builder
	var logMu sync.Mutex
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := NewRun(ctx, Config{Model: boundedModel(srv, nil), Tabs: newFakeTabs(),
		Log: NewRunLog(writerFunc(func(p []byte) (int, error) { logMu.Lock(); defer logMu.Unlock(); return log.Write(p) }), nil)})
	sub := r.Room().Subscribe(ctx)
	_, err := r.Execute(ctx, "anything")
	if !errors.Is(err, ErrModelStalled) {
		t.Fatalf("run ended with %v, want the stalled-server fault", err)
	}
	for told := false; !told; {
		select {
		case e := <-sub.C():
			told = e.Kind == EventModelWait
		case <-ctx.Done():
			t.Fatal("no model_wait event in the room")
		}
	}
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(log.String(), `"event":"model_wait"`) {
		t.Error("the run log has no model_wait record")
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
