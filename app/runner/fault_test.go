package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/internal/apptest"
	"vroom/browser"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// Browser faults against a real Chromium of each test's own (never the
// shared test browser), killed with SIGKILL at a chosen moment: the run
// must end within 2 s of the death with "the browser closed", and at most
// one model call may follow the death.

// ownBrowser launches a Chromium for one test on a profile of its own, so
// its process can be found (and killed) by that profile's path.
func ownBrowser(t *testing.T) (*browser.Browser, string) {
	t.Helper()
	needBrowser(t)
	dir := t.TempDir()
	b, err := browser.Launch(context.Background(), browser.Options{ProfileDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, dir
}

// killingTabs kills the browser when an agent's tab is first observed or
// acted on, as the call goes out: the death lands in the middle of it.
type killingTabs struct {
	agents.TabProvider
	on   string // "observe" or "act"
	kill func()
}

func (p killingTabs) Open(ctx context.Context, owner, url string) (agents.Tab, error) {
	t, err := p.TabProvider.Open(ctx, owner, url)
	if err != nil {
		return nil, err
	}
	return killingTab{Tab: t, p: p}, nil
}

func (p killingTabs) Release(t agents.Tab, owner string) {
	if k, ok := t.(killingTab); ok {
		t = k.Tab
	}
	p.TabProvider.Release(t, owner)
}

type killingTab struct {
	agents.Tab
	p killingTabs
}

func (t killingTab) Observe(ctx context.Context) (agents.Observation, error) {
	if t.p.on == "observe" {
		t.p.kill()
	}
	return t.Tab.Observe(ctx)
}

func (t killingTab) Act(ctx context.Context, a agents.Action) (agents.Outcome, error) {
	if t.p.on == "act" {
		t.p.kill()
	}
	return t.Tab.Act(ctx, a)
}

// browserFault is one run on its own browser, killed at some moment.
type browserFault struct {
	b       *browser.Browser
	profile string
	srv     *modeltest.Server
	killed  chan time.Time
}

func newBrowserFault(t *testing.T) *browserFault {
	b, profile := ownBrowser(t)
	return &browserFault{b: b, profile: profile, srv: modeltest.New(t), killed: make(chan time.Time, 1)}
}

// kill kills the browser once.
func (f *browserFault) kill(t testing.TB) {
	select {
	case f.killed <- testenv.KillChromium(t, f.profile):
	default:
	}
}

// run builds and executes a run on f's browser; killOn wraps its tabs
// ("observe", "act") or leaves them ("").
func (f *browserFault) run(t *testing.T, headless bool, killOn string) (agents.Result, error, time.Time) {
	t.Helper()
	st := config.DefaultSettings()
	st.BaseURL, st.PlannerModel, st.ExecutorModel = f.srv.URL, "planner", "executor"
	built, err := BuildRun(context.Background(), RunSpec{
		Task: "fault", Browser: f.b, Settings: st, DataDir: t.TempDir(), CloseTabs: headless, EndOnBrowserLoss: headless,
		Edit: func(c *agents.Config) {
			if killOn != "" {
				c.Tabs = killingTabs{TabProvider: c.Tabs, on: killOn, kill: func() { f.kill(t) }}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := built.Execute(ctx)
	end := time.Now()
	if ctx.Err() != nil {
		t.Fatalf("the run was still going 30 s on: %v", err)
	}
	if cerr := built.Close(); cerr != nil {
		t.Logf("close: %v", cerr)
	}
	return res, err, end
}

// check asserts a headless run's end: ErrBrowserGone, said in the
// summary, within 2 s of the death, at most one model call after it.
func (f *browserFault) check(t *testing.T, res agents.Result, err error, end time.Time) {
	t.Helper()
	var at time.Time
	select {
	case at = <-f.killed:
	default:
		t.Fatalf("the browser was never killed: %v %+v", err, res)
	}
	if !errors.Is(err, agents.ErrBrowserGone) || res.Success || !strings.Contains(res.Summary, "the browser closed") {
		t.Fatalf("err %v, result %+v", err, res)
	}
	took := end.Sub(at)
	after := 0
	for _, r := range f.srv.Requests("") {
		if r.At.After(at) {
			after++
		}
	}
	if took > 2*time.Second || after > 1 {
		t.Fatalf("the run ended %v after the browser died, with %d model calls after it", took, after)
	}
	t.Logf("browser killed → run failed %v later, %d model calls after the death: %s", took, after, res.Summary)
}

// quotePlanner scripts the planner: one executor on s's quote page, a
// wait for it, then end.
func (f *browserFault) quotePlanner(s *apptest.Site, end modeltest.Reply) {
	f.srv.Then("planner", apptest.Call("spawn", "task", "quote", "url", s.URL+"/quote.html"), apptest.Call("wait", "mode", "all"), end)
}

// killOnModelCall kills the browser as the executor calls the model,
// whose reply then never comes in the run's time.
func (f *browserFault) killOnModelCall(t *testing.T) {
	f.srv.Script("executor", modeltest.Step{Times: -1, Func: func(*modeltest.Request) modeltest.Reply {
		f.kill(t)
		return modeltest.Slow(time.Minute, apptest.Call("read_page"))
	}})
}

func faultScript(f *browserFault, s *apptest.Site) {
	f.quotePlanner(s, apptest.Done("never", true))
	f.srv.Then("executor", apptest.Call("read_page"), apptest.Call("navigate", "url", s.URL+"/quote.html"), apptest.Done("never", true))
}

// TestFaultBrowserKilledMidObserve: the browser dies as the executor's
// first observation goes out.
func TestFaultBrowserKilledMidObserve(t *testing.T) {
	f := newBrowserFault(t)
	faultScript(f, apptest.NewSite(t))
	res, err, end := f.run(t, true, "observe")
	f.check(t, res, err, end)
	if n := len(f.srv.Requests("executor")); n != 0 {
		t.Errorf("the executor asked the model %d times", n)
	}
}

// TestFaultBrowserKilledMidAction: the browser dies as the executor's
// navigate goes out.
func TestFaultBrowserKilledMidAction(t *testing.T) {
	f := newBrowserFault(t)
	faultScript(f, apptest.NewSite(t))
	res, err, end := f.run(t, true, "act")
	f.check(t, res, err, end)
}

// TestFaultBrowserKilledMidModelCall: the browser dies while the executor
// waits on the model; the run ends without waiting for the reply.
func TestFaultBrowserKilledMidModelCall(t *testing.T) {
	f := newBrowserFault(t)
	f.quotePlanner(apptest.NewSite(t), apptest.Done("never", true))
	f.killOnModelCall(t)
	res, err, end := f.run(t, true, "")
	f.check(t, res, err, end)
}

// TestFaultBrowserKilledDesktop: with the desktop's rule the run goes on:
// the agent whose tab died ends failed, told once that its tab is gone,
// and the planner's wait reports it (here the planner then gives up).
func TestFaultBrowserKilledDesktop(t *testing.T) {
	f := newBrowserFault(t)
	f.quotePlanner(apptest.NewSite(t), apptest.Done("the browser closed under agent 1", false))
	f.killOnModelCall(t)
	res, err, end := f.run(t, false, "")
	if err != nil || len(res.Procs) != 1 {
		t.Fatalf("err %v, result %+v", err, res)
	}
	at := <-f.killed
	p := res.Procs[0]
	if p.State != agents.ProcFailed || !strings.Contains(p.Summary, "its tab is gone: the browser closed") {
		t.Fatalf("process %+v", p)
	}
	reqs := f.srv.Requests("planner")
	if len(reqs) != 3 || len(f.srv.Requests("executor")) != 1 {
		t.Fatalf("%d planner and %d executor calls", len(reqs), len(f.srv.Requests("executor")))
	}
	last, _ := reqs[2].LastMessage()
	waited, _, _ := strings.Cut(last.Content, "<room>")
	if strings.Count(waited, "its tab is gone") != 1 {
		t.Fatalf("the wait said: %s", last.Content)
	}
	if d := reqs[2].At.Sub(at); d > 2*time.Second {
		t.Fatalf("the planner heard %v after the death", d)
	}
	t.Logf("desktop: agent 1 failed and the planner heard it %v after the death; the run ended %v after it", reqs[2].At.Sub(at), end.Sub(at))
}

// TestFaultRunLogDiskFull: a run log on a full disk (/dev/full) fails
// its first write, which fails the run at once with an error naming the
// log and the cause; Close says the log may be incomplete
// (ErrRunLogIncomplete), which each face shows the person.
func TestFaultRunLogDiskFull(t *testing.T) {
	needBrowser(t)
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	srv := modeltest.New(t)
	srv.Then("planner", modeltest.Slow(time.Minute, apptest.Done("nothing to do", true)))
	dir := t.TempDir()
	id := agents.NewRunID(time.Now())
	path := filepath.Join(dir, "runs", id+".jsonl")
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/full", path); err != nil {
		t.Fatal(err)
	}
	st := config.DefaultSettings()
	st.BaseURL, st.PlannerModel, st.ExecutorModel = srv.URL, "planner", "executor"
	built, err := BuildRun(context.Background(), RunSpec{ID: id, Task: "x", Browser: testBrowser, Settings: st, DataDir: dir, CloseTabs: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	began := time.Now()
	res, err := built.Execute(ctx)
	if !errors.Is(err, agents.ErrRunLogWrite) || !errors.Is(err, syscall.ENOSPC) || res.Success {
		t.Fatalf("the run on a full disk ended with %v %+v", err, res)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Fatalf("the run stopped %v after its log failed (the planner's call takes a minute)", took)
	}
	if want := "the run log cannot be written: " + path + ": no space left on device"; err.Error() != want {
		t.Fatalf("err %q, want %q", err, want)
	}
	cerr := built.Close()
	if !errors.Is(cerr, ErrRunLogIncomplete) || !errors.Is(cerr, syscall.ENOSPC) {
		t.Fatalf("close: %v", cerr)
	}
	t.Logf("run: %v; close: %v", err, cerr)
}

// closedTab is an agents.Tab whose searches and waits meet a closed tab,
// as the browser reports one.
type closedTab struct{ agents.Tab }

func (closedTab) Find(context.Context, agents.FindOptions) (agents.Observation, error) {
	return agents.Observation{}, fmt.Errorf("find: %w", browser.ErrTabClosed)
}

func (closedTab) Wait(context.Context, agents.WaitFor, time.Duration) (agents.WaitOutcome, error) {
	return agents.WaitOutcome{}, fmt.Errorf("wait: %w", browser.ErrBrowserClosed)
}

// The adapter's Find and Wait say a tab is gone as its other calls do, so
// the run ends the agent instead of showing the model the error.
func TestFaultFindAndWaitMapGone(t *testing.T) {
	t.Parallel()
	g := goneTab{closedTab{}}
	_, err := g.Find(context.Background(), agents.FindOptions{Query: "x"})
	if !errors.Is(err, agents.ErrTabGone) || !errors.Is(err, browser.ErrTabClosed) {
		t.Errorf("find: %v", err)
	}
	_, err = g.Wait(context.Background(), agents.WaitFor{Text: "x"}, time.Second)
	if !errors.Is(err, agents.ErrBrowserGone) || !errors.Is(err, browser.ErrBrowserClosed) {
		t.Errorf("wait: %v", err)
	}
}
