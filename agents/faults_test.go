package agents

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"vroom/internal/modeltest"
)

// Faults no retry can mend end an agent, or the run, at once: each test
// bounds the time from the fault to the run's end and counts the model
// calls made after the fault (at most one, and that one only if it was in
// flight already).

// faultDeadline bounds every fault test's run: a run that would loop on a
// fault hangs here instead of passing.
const faultDeadline = 10 * time.Second

// executeFault runs tr under faultDeadline and returns its result, error
// and when it returned.
func executeFault(t *testing.T, tr *testRun, task string) (Result, error, time.Time) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), faultDeadline)
	defer cancel()
	res, err := tr.Execute(ctx, task)
	if ctx.Err() != nil {
		t.Fatalf("the run was still going after %v: %v", faultDeadline, err)
	}
	return res, err, time.Now()
}

// awaitRequest waits until the model server has received n requests of
// role.
func awaitRequest(t *testing.T, srv *modeltest.Server, role string, n int) {
	t.Helper()
	deadline := time.NewTimer(faultDeadline)
	defer deadline.Stop()
	for {
		ch := srv.Changed()
		if len(srv.Requests(role)) >= n {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("no request %d for %s within %v", n, role, faultDeadline)
		}
	}
}

// A 401 ends the whole run at once: no retry, the executor in the middle of
// another call is stopped, the planner is not asked again, and the failure
// says the key was refused, by whom, and where to set it.
func TestFaultKeyRefused(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, func(c *Config) {
		c.Model = NewModel(ModelConfig{BaseURL: c.Model.cfg.BaseURL, APIKey: "sk-test-key", Models: c.Model.cfg.Models,
			Backoff: time.Millisecond, KeyHint: "set it in Settings"})
	})
	tr.srv.Then("planner", spawn("slow"), spawn("refused"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("never", true))
	tr.srv.Script("executor",
		modeltest.Step{Match: modeltest.SystemContains("Your task: slow"), Reply: modeltest.Slow(time.Minute, done("late", true))},
		modeltest.Step{Match: modeltest.SystemContains("Your task: refused"), Reply: modeltest.Reply{Status: http.StatusUnauthorized}},
	)
	res, err, end := executeFault(t, tr, "two")
	var fault time.Time
	for _, r := range tr.srv.Requests("executor") {
		if strings.Contains(r.Chat.Messages[0].Content, "Your task: refused") {
			fault = r.At
		}
	}
	if !errors.Is(err, ErrKeyRefused) || !errors.Is(err, ErrModel) || res.Success {
		t.Fatalf("err %v, result %+v", err, res)
	}
	for _, want := range []string{"refused", tr.srv.URL, "401", "set it in Settings"} {
		if !strings.Contains(res.Summary, want) {
			t.Errorf("summary %q does not say %q", res.Summary, want)
		}
	}
	if d := end.Sub(fault); d > 2*time.Second {
		t.Errorf("the run ended %v after the 401", d)
	}
	// The other executor's first call may reach the server just after the
	// 401 (the executors start at once): at most that one.
	after := requestsAfter(tr.srv, fault)
	if after > 1 {
		t.Errorf("%d model calls after the 401", after)
	}
	t.Logf("401 → run ended in %v, %d model calls after it", end.Sub(fault), after)
	for _, p := range res.Procs {
		if !p.State.Finished() || p.Success {
			t.Errorf("process %+v", p)
		}
	}
}

// requestsAfter counts the model requests received after at.
func requestsAfter(srv *modeltest.Server, at time.Time) int {
	n := 0
	for _, r := range srv.Requests("") {
		if r.At.After(at) {
			n++
		}
	}
	return n
}

// dyingServer is a model server that streams the start of a reply and then
// dies: the connection cut mid-stream, the listener closed, so every retry
// meets a refused connection.
type dyingServer struct {
	srv    *httptest.Server
	calls  atomic.Int32
	killed chan struct{}
	at     time.Time // when it was killed; read after killed closes
	once   sync.Once
}

func newDyingServer(t *testing.T) *dyingServer {
	d := &dyingServer{killed: make(chan struct{})}
	d.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.calls.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"I will"}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		d.kill()
	}))
	t.Cleanup(d.kill)
	return d
}

// kill closes the listener and every connection: the server is gone.
func (d *dyingServer) kill() {
	d.once.Do(func() {
		d.at = time.Now()
		d.srv.Listener.Close()
		d.srv.CloseClientConnections()
		close(d.killed)
	})
}

// A model server killed in the middle of a streamed reply is retried a
// bounded number of times, then the run fails naming the server, well
// within the retries' back-off.
func TestFaultModelServerDiesMidStream(t *testing.T) {
	t.Parallel()
	d := newDyingServer(t)
	tr := newTestRun(t, func(c *Config) {
		c.Model = NewModel(ModelConfig{BaseURL: d.srv.URL, Models: c.Model.cfg.Models, MaxRetries: 3, Backoff: 20 * time.Millisecond})
	})
	res, err, end := executeFault(t, tr, "anything")
	<-d.killed
	if !errors.Is(err, ErrModelUnreachable) || res.Success {
		t.Fatalf("err %v, result %+v", err, res)
	}
	var mf *ModelFault
	if !errors.As(err, &mf) || mf.Attempts != 4 || !strings.Contains(res.Summary, d.srv.URL) || !strings.Contains(res.Summary, "unreachable") {
		t.Fatalf("fault %+v, summary %q", mf, res.Summary)
	}
	if n := d.calls.Load(); n != 1 {
		t.Errorf("the dead server answered %d calls", n)
	}
	if end.Sub(d.at) > 2*time.Second {
		t.Errorf("the run failed %v after the server died", end.Sub(d.at))
	}
	t.Logf("server killed mid-stream → run failed %v later, after %d attempts (%d answered): %s", end.Sub(d.at), mf.Attempts, d.calls.Load(), res.Summary)
}

// An unreachable server from the start fails the same way: bounded
// retries, then the URL named.
func TestFaultModelServerUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close() // nothing listens there now
	tr := newTestRun(t, func(c *Config) {
		c.Model = NewModel(ModelConfig{BaseURL: url, Models: c.Model.cfg.Models, MaxRetries: 2, Backoff: 10 * time.Millisecond})
	})
	start := time.Now()
	res, err, end := executeFault(t, tr, "anything")
	if !errors.Is(err, ErrModelUnreachable) || !strings.Contains(res.Summary, url+"/v1") || end.Sub(start) > 2*time.Second {
		t.Fatalf("err %v, summary %q after %v", err, res.Summary, end.Sub(start))
	}
}

// dyingTabs lends fake tabs that all fail with err once the browser is
// dead, as app's adapter reports a browser that closed.
type dyingTabs struct {
	*fakeTabs
	dead atomic.Bool
	err  error
}

func (p *dyingTabs) Open(ctx context.Context, owner, url string) (Tab, error) {
	t, err := p.fakeTabs.Open(ctx, owner, url)
	if err != nil {
		return nil, err
	}
	return &dyingTab{Tab: t, p: p}, nil
}

func (p *dyingTabs) Release(t Tab, owner string) {
	p.fakeTabs.Release(t.(*dyingTab).Tab, owner)
}

type dyingTab struct {
	Tab
	p *dyingTabs
}

func (t *dyingTab) Act(ctx context.Context, a Action) (Outcome, error) {
	if t.p.dead.Load() {
		return Outcome{}, t.p.err
	}
	return t.Tab.Act(ctx, a)
}

func (t *dyingTab) Observe(ctx context.Context) (Observation, error) {
	if t.p.dead.Load() {
		return Observation{}, t.p.err
	}
	return t.Tab.Observe(ctx)
}

func newDyingRun(t *testing.T, failRun bool) (*testRun, *dyingTabs) {
	dt := &dyingTabs{fakeTabs: newFakeTabs(), err: fmt.Errorf("%w (browser closed: connection lost)", ErrBrowserGone)}
	dt.page = func(ft *fakeTab) {
		ft.addControl(&fakeControl{ref: "e1", role: "button", name: "Go", click: func(*fakeTab) string {
			dt.dead.Store(true) // the browser dies during the click
			return "went"
		}})
	}
	tr := newTestRun(t, func(c *Config) { c.Tabs, c.FailOnBrowserGone = dt, failRun })
	tr.tabs = dt.fakeTabs
	return tr, dt
}

// Desktop: a tab lost mid-action ends its agent at once, failed, with a
// summary saying the tab is gone; the agent never calls the model again,
// and the planner's wait reports the failure, once, for it to decide.
func TestFaultTabGoneMidAction(t *testing.T) {
	t.Parallel()
	tr, _ := newDyingRun(t, false)
	tr.srv.Then("planner", spawn("x"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("the browser closed under agent 1", false))
	// The second click finds the browser dead.
	tr.srv.Then("executor", modeltest.Call("read_page", map[string]any{}), modeltest.Call("click", map[string]string{"ref": "e1"}),
		modeltest.Call("click", map[string]string{"ref": "e1"}), done("never", true))
	res, err, _ := executeFault(t, tr, "x")
	if err != nil {
		t.Fatalf("the run itself failed: %v", err)
	}
	if n := len(tr.srv.Requests("executor")); n != 3 {
		t.Errorf("the executor made %d model calls; 3 expected, none after its tab was gone", n)
	}
	p := res.Procs[0]
	if p.State != ProcFailed || !strings.Contains(p.Summary, "its tab is gone") || !strings.Contains(p.Summary, "the browser closed") {
		t.Fatalf("process %+v", p)
	}
	// The wait reports it once (the room's notice of the failure comes
	// with it, as for any agent's end).
	waited, _ := tr.srv.Requests("planner")[2].LastMessage()
	res1, _, _ := strings.Cut(waited.Content, "<room>")
	if strings.Count(res1, "its tab is gone") != 1 {
		t.Fatalf("the wait told the planner %d times: %s", strings.Count(res1, "its tab is gone"), waited.Content)
	}
}

// Headless: the same loss ends the whole run, with ErrBrowserGone, and the
// planner is not asked again.
func TestFaultBrowserGoneEndsHeadlessRun(t *testing.T) {
	t.Parallel()
	tr, _ := newDyingRun(t, true)
	tr.srv.Then("planner", spawn("x"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("never", true))
	tr.srv.Then("executor", modeltest.Call("click", map[string]string{"ref": "e1"}), modeltest.Call("click", map[string]string{"ref": "e1"}), done("never", true))
	res, err, end := executeFault(t, tr, "x")
	if !errors.Is(err, ErrBrowserGone) || res.Success || !strings.Contains(res.Summary, "the browser closed") {
		t.Fatalf("err %v, result %+v", err, res)
	}
	// The executor's second call is where its click met the dead browser.
	// The planner's wait may be asked just before or just after it (spawn
	// returns at once): at most that one call may follow the loss.
	fault := tr.srv.Requests("executor")[1].At
	if n := requestsAfter(tr.srv, fault); n > 1 || len(tr.srv.Requests("planner")) > 2 {
		t.Errorf("%d model calls after the loss; the planner was asked %d times", n, len(tr.srv.Requests("planner")))
	}
	if d := end.Sub(fault); d > 2*time.Second {
		t.Errorf("the run ended %v after the loss", d)
	}
}

// Desktop: LoseTabs (the app saw the browser die) ends an agent that is in
// the middle of a model call at once: its call is cancelled, it ends failed
// and told once, and the planner decides.
func TestFaultLoseTabsMidModelCall(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	tr.srv.Then("planner", spawn("x"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("lost", false))
	tr.srv.Then("executor", modeltest.Slow(time.Minute, done("late", true)))
	go func() {
		awaitRequest(t, tr.srv, "executor", 1)
		tr.LoseTabs(fmt.Errorf("%w (browser closed: connection lost)", ErrBrowserGone))
	}()
	res, err, end := executeFault(t, tr, "x")
	if err != nil {
		t.Fatal(err)
	}
	fault := tr.srv.Requests("executor")[0].At
	if d := end.Sub(fault); d > 2*time.Second {
		t.Errorf("the run ended %v after the loss", d)
	}
	if p := res.Procs[0]; p.State != ProcFailed || !strings.Contains(p.Summary, "its tab is gone") {
		t.Fatalf("process %+v", p)
	}
	if n := len(tr.srv.Requests("executor")); n != 1 {
		t.Errorf("%d executor calls", n)
	}
}

// Garbage of mixed kinds in a row (prose, malformed arguments, prose) stops
// the agent at the third reply with ErrModelGarbage; the planner decides.
func TestFaultGarbageInARow(t *testing.T) {
	t.Parallel()
	tr := newTestRun(t, nil)
	tr.srv.Then("planner", spawn("x"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("gave up", false))
	tr.srv.Then("executor", modeltest.Text("Sure."), modeltest.MalformedArgs("click", `{ref: e1}`), modeltest.Text("Still prose."), done("never", true))
	res, err, _ := executeFault(t, tr, "x")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tr.srv.Requests("executor")); n != garbageLimit {
		t.Errorf("%d executor calls, want %d", n, garbageLimit)
	}
	if p := res.Procs[0]; p.State != ProcFailed {
		t.Fatalf("process %+v", p)
	}
	recs := records(t, tr.log)
	found := false
	for _, r := range recs {
		found = found || r.Event == LogError && strings.Contains(r.Error, ErrModelGarbage.Error())
	}
	if !found {
		t.Fatal("no ErrModelGarbage in the log")
	}
}
