package runner

// The harness of runner's tests: one Chromium for the binary, and runs of
// agents over the Tabs adapter and the scripted model (harness).

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/browser"
	"vroom/internal/modeltest"
	"vroom/internal/testkit"
)

// harness is one run over the real browser and the scripted model.
type harness struct {
	*agents.Run
	srv  *modeltest.Server
	tabs *Tabs
	log  *testkit.LockedBuffer
}

func newHarness(t testing.TB, edit func(*agents.Config)) *harness {
	t.Helper()
	needBrowser(t)
	srv := modeltest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	tabs := NewTabs(ctx, testBrowser, nil, browser.ObserveOptions{})
	t.Cleanup(func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		tabs.CloseOpened(cctx)
		cancel()
	})
	buf := &testkit.LockedBuffer{}
	cfg := agents.Config{
		Model: agents.NewModel(agents.ModelConfig{BaseURL: srv.URL, APIKey: "sk-test-key",
			Models:  map[agents.Role]string{agents.RolePlanner: "planner", agents.RoleExecutor: "executor"},
			Backoff: time.Millisecond}),
		Tabs:  tabs,
		Log:   agents.NewRunLog(buf, nil),
		Floor: agents.FloorConfig{WordsPerMinute: 60000},
	}
	if edit != nil {
		edit(&cfg)
	}
	cfg.Log.Redact("sk-test-key")
	return &harness{Run: agents.NewRun(ctx, cfg), srv: srv, tabs: tabs, log: buf}
}

// execute runs task and fails the test if the run errs or a model request
// found no script step.
func (h *harness) execute(t testing.TB, task string, tabs ...string) agents.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := h.Execute(ctx, task, tabs...)
	if err != nil {
		t.Fatalf("run failed: %v (result %+v)", err, res)
	}
	if um := h.srv.Unmatched(); len(um) > 0 {
		t.Fatalf("%d model requests matched no script step; the first, for %s, ended with: %s", len(um), um[0].Role, apptest.Tail(um[0].Text(), 2000))
	}
	return res
}

// prewarm opens n blank tabs ahead, as vroom run does while the planner's
// first call is under way.
func prewarm(t testing.TB, h *harness, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.tabs.Prewarm(ctx, n); err != nil {
		t.Fatal(err)
	}
}

// confirmations records what a run asked the person, answering each with
// one decision.
type confirmations struct {
	mu    sync.Mutex
	asked []agents.Confirmation
}

// answering is a Config edit that sends the run's confirmations to c.
func (c *confirmations) answering(d agents.Decision) func(*agents.Config) {
	return func(cfg *agents.Config) {
		cfg.Confirm = agents.ConfirmFunc(func(ctx context.Context, cf agents.Confirmation) (agents.Decision, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.asked = append(c.asked, cf)
			return d, nil
		})
	}
}

func (c *confirmations) list() []agents.Confirmation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]agents.Confirmation(nil), c.asked...)
}

// testBrowser is the test binary's one Chromium; every test opens its own
// tabs.
var testBrowser *browser.Browser

func TestMain(m *testing.M) { os.Exit(apptest.Main(m, &testBrowser)) }

// needBrowser skips a test without Chromium, except in CI where it fails.
func needBrowser(tb testing.TB) {
	tb.Helper()
	apptest.NeedBrowser(tb, testBrowser)
}
