package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testkit"
)

// boundedRun is vroom run in-process over srv with the model client's
// bounds a second long (30 s in a real run), so a silent server is a
// fault within seconds of the test's time: its exit code, what it
// printed, and how long it took.
type boundedRun struct {
	code     int
	out, err testkit.LockedBuffer
	took     time.Duration
}

func runBounded(t *testing.T, srv *modeltest.Server, edit func(*agents.ModelConfig), task string) *boundedRun {
	t.Helper()
	env := testEnv(t, srv)
	env.EditModel = edit
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := &boundedRun{}
	began := time.Now()
	r.code = runTask(ctx, []string{task}, env, &r.out, &r.err)
	r.took = time.Since(began)
	t.Logf("exit %d after %v\nstdout:\n%s\nstderr:\n%s", r.code, r.took.Round(time.Millisecond), r.out.String(), r.err.String())
	return r
}

// shortBounds is a client that calls a server silent for a second
// stalled, and tells the person of a wait after 0.3 s.
func shortBounds(c *agents.ModelConfig) {
	c.FirstByteTimeout, c.IdleTimeout, c.SlowNotice = time.Second, time.Second, 300*time.Millisecond
	c.Backoff = 500 * time.Millisecond
}

// says fails the test unless what vroom run wrote holds every want.
func (r *boundedRun) says(t *testing.T, where string, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q", where, w)
		}
	}
}

// TestFaultModelServer: a model server that misbehaves ends vroom run or
// is recovered from within the client's bounds, and every wait long
// enough to notice is printed as it happens, then cleared.
func TestFaultModelServer(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	t.Run("never-answers", faultNeverAnswers)
	t.Run("stops-mid-stream", faultStopsMidStream)
	t.Run("retry-after-3600", faultRetryAfterHour)
	t.Run("rate-limited-briefly", faultRateLimitedBriefly)
	t.Run("done-without-summary", faultDoneWithoutSummary)
}

// A server that accepts and never answers: two attempts of a second
// each, the wait printed, then exit 1 naming the stall.
func faultNeverAnswers(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	srv.Then("planner", modeltest.Slow(time.Hour, modeltest.Text("late")), modeltest.Slow(time.Hour, modeltest.Text("late")))
	r := runBounded(t, srv, shortBounds, "anything")
	if r.code != 1 || r.took > 6*time.Second {
		t.Fatalf("exit %d after %v: want 1 within two bounds and a retry", r.code, r.took)
	}
	r.says(t, "stdout", r.out.String(), "model server slow: no answer for planner yet after 0.3 s", "model server gave up on planner")
	r.says(t, "stderr", r.err.String(), "stopped answering (2 attempts", "no first byte of a reply within 1.0 s")
}

// A stream that stops mid-reply is a stall at its idle bound; the retry's
// whole answer finishes the run.
func faultStopsMidStream(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	srv.Then("planner", modeltest.Stalled(3, apptest.Done("a long answer that never arrives whole", true)), apptest.Done("nothing to do", true))
	r := runBounded(t, srv, shortBounds, "anything")
	if r.code != 0 || r.took > 6*time.Second {
		t.Fatalf("exit %d after %v: want 0 after one stalled attempt", r.code, r.took)
	}
	r.says(t, "stdout", r.out.String(), "model server slow: ", "retry 1/3 (no answer in 1.0 s)", "model server answered planner", "run done: nothing to do")
	if n := len(srv.Requests("planner")); n != 2 {
		t.Errorf("%d planner requests, want 2", n)
	}
}

// Retry-After: 3600 is the server's refusal, said at once with how long
// it asked for, not an hour of silence.
func faultRetryAfterHour(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	srv.Then("planner", modeltest.RateLimited(time.Hour), apptest.Done("never asked", true))
	r := runBounded(t, srv, nil, "anything")
	if r.code != 1 || r.took > 3*time.Second {
		t.Fatalf("exit %d after %v: want 1 at once", r.code, r.took)
	}
	r.says(t, "stderr", r.err.String(), "asks to be retried in 1h0m0s, longer than the 1m0s Vroom waits (HTTP 429); try again later")
	if n := len(srv.Requests("planner")); n != 1 {
		t.Errorf("%d planner requests, want 1", n)
	}
}

// A short Retry-After is obeyed, the wait printed with the attempt it
// precedes and why, then cleared when the server answers.
func faultRateLimitedBriefly(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	srv.Then("planner", modeltest.RateLimited(2*time.Second), apptest.Done("nothing to do", true))
	r := runBounded(t, srv, shortBounds, "anything")
	if r.code != 0 || r.took > 6*time.Second {
		t.Fatalf("exit %d after %v", r.code, r.took)
	}
	r.says(t, "stdout", r.out.String(), "model server slow: waiting 2.0 s for planner, retry 1/3 (HTTP 429)", "model server answered planner")
}

// A planner that calls done without a summary is asked once for one; a
// second empty done ends the run with its agent's report, never with
// nothing.
func faultDoneWithoutSummary(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	srv.Then("planner", apptest.Call("spawn", "task", "read the quote desk", "url", s.URL+"/quote.html"), apptest.Call("wait", "mode", "all"),
		modeltest.Call("done", map[string]any{}), modeltest.Call("done", map[string]any{"success": true}))
	srv.Then("executor", apptest.Done("the desk quotes on request", true))
	r := runBounded(t, srv, nil, "what does the desk do")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	r.says(t, "stdout", r.out.String(), "run done: (finished without a summary)", "the desk quotes on request")
	if n := len(srv.Requests("planner")); n != 4 {
		t.Errorf("%d planner requests, want 4 (spawn, wait, done refused, done)", n)
	}
}
