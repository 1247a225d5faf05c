package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/internal/apptest"
	"vroom/app/runner"
	"vroom/browser"
	"vroom/internal/modeltest"
	"vroom/internal/testkit"
)

// modelDelay is how long every scripted model answer takes in
// BenchmarkRunOverhead: a real model's pace, so what Vroom adds shows.
const modelDelay = time.Second

// BenchmarkRunOverhead runs four executors of three model calls each in
// real Chromium, with a scripted model whose every answer takes
// modelDelay: the planner spawns all four in one turn, waits for them and
// ends. The model's own time on the critical path is five answers (the
// planner's spawn turn, an executor's three, the planner's done); the wait
// turn overlaps the executors. overhead-s is the wall time less that: tab
// opening, observation, actions and their verification, and whatever the
// runtime serialises. start-spread-s is the time from the first executor's
// first model request to the last one's, which is near zero when spawns do
// not queue behind page loads. Medians over the iterations.
func BenchmarkRunOverhead(b *testing.B) {
	needBrowser(b)
	s := apptest.NewSite(b)
	srv := modeltest.New(b)
	tasks := []string{"page one", "page two", "page three", "page four"}
	var spawns []modeltest.ToolCall
	for i, task := range tasks {
		spawns = append(spawns, modeltest.CallOf("spawn", map[string]any{"task": task, "url": fmt.Sprintf("%s/form.html?agent=%d", s.URL, i+1)}))
	}
	srv.Script("planner", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch {
		case r.ToolResults() == 0:
			return modeltest.Slow(modelDelay, modeltest.Calls(spawns...))
		case strings.Contains(r.LastText(), `"finished"`):
			return modeltest.Slow(modelDelay, apptest.Done("all four finished", true))
		}
		return modeltest.Slow(modelDelay, apptest.Call("wait", "mode", "all"))
	}})
	var firsts firstCalls
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch r.ToolResults() {
		case 0:
			firsts.add(time.Now())
			return modeltest.Slow(modelDelay, apptest.Call("scroll", "direction", "down"))
		case 1:
			return modeltest.Slow(modelDelay, apptest.Call("scroll", "direction", "up"))
		}
		return modeltest.Slow(modelDelay, apptest.Done("looked at the page", true))
	}})
	var overheads, spreads []float64
	for b.Loop() {
		wall, spread := runOverheadOnce(b, srv.URL, &firsts)
		overheads = append(overheads, (wall - 5*modelDelay).Seconds())
		spreads = append(spreads, spread.Seconds())
	}
	b.ReportMetric(testkit.Median(overheads), "overhead-s")
	b.ReportMetric(testkit.Median(spreads), "start-spread-s")
}

// runOverheadOnce runs the scripted task once as vroom run does (blank
// tabs prewarmed while the planner's first call is in flight) and returns
// its wall time and the spread of the executors' first model requests.
func runOverheadOnce(b *testing.B, url string, firsts *firstCalls) (wall, spread time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tabs := runner.NewTabs(ctx, testBrowser, nil, browser.ObserveOptions{})
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer ccancel()
		if err := tabs.CloseOpened(cctx); err != nil {
			b.Log(err)
		}
	}()
	run := agents.NewRun(ctx, agents.Config{
		Model: agents.NewModel(agents.ModelConfig{BaseURL: url,
			Models: map[agents.Role]string{agents.RolePlanner: "planner", agents.RoleExecutor: "executor"}}),
		Tabs:  tabs,
		Floor: agents.FloorConfig{WordsPerMinute: 60000},
	})
	firsts.reset()
	start := time.Now()
	go func() {
		if err := tabs.Prewarm(ctx, 3); err != nil && ctx.Err() == nil {
			b.Log(err)
		}
	}()
	res, err := run.Execute(ctx, "look at four pages")
	wall = time.Since(start)
	if err != nil || !res.Success || len(res.Procs) != 4 {
		b.Fatalf("%v %+v", err, res)
	}
	return wall, firsts.spread()
}

// firstCalls collects when each executor's first model request arrived.
type firstCalls struct {
	mu sync.Mutex
	at []time.Time
}

func (f *firstCalls) add(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.at = append(f.at, t)
}

func (f *firstCalls) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.at = nil
}

func (f *firstCalls) spread() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.at) < 2 {
		return 0
	}
	return slices.MaxFunc(f.at, time.Time.Compare).Sub(slices.MinFunc(f.at, time.Time.Compare))
}

// BenchmarkStartup measures `vroom run` from its start to the planner's
// first model request (startup-s), as the command runs it: the settings
// read, the key looked up in the system keyring (the test environment's
// gnome-keyring; OPENAI_API_KEY unset), the browser launched (headless,
// throwaway profile), the run log created. launch-s is browser.Launch
// alone, for comparison. Medians over the iterations.
func BenchmarkStartup(b *testing.B) {
	needBrowser(b)
	srv := modeltest.New(b)
	first := make(chan time.Time, 1)
	srv.Script("planner", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		select {
		case first <- time.Now():
		default:
		}
		return apptest.Done("started", true)
	}})
	b.Setenv("OPENAI_API_KEY", "")
	var startups, launches []float64
	for b.Loop() {
		startups = append(startups, startupOnce(b, srv.URL, first).Seconds())
		t0 := time.Now()
		lb, err := browser.Launch(context.Background(), browser.Options{})
		if err != nil {
			b.Fatal(err)
		}
		launches = append(launches, time.Since(t0).Seconds())
		if err := lb.Close(); err != nil {
			b.Log(err)
		}
	}
	b.ReportMetric(testkit.Median(startups), "startup-s")
	b.ReportMetric(testkit.Median(launches), "launch-s")
}

// startupOnce runs `vroom run` once with a real keyring and a browser of
// its own, and returns the time to the planner's first request.
func startupOnce(b *testing.B, url string, first <-chan time.Time) time.Duration {
	st := config.DefaultSettings()
	st.BaseURL = url
	st.PlannerModel, st.ExecutorModel = "planner", "executor"
	secrets := config.NewSecrets(config.SystemKeyring{}, config.KeyringTimeout, nil)
	env := runEnv{Settings: st, DataDir: b.TempDir(), Key: func(ctx context.Context) (string, error) {
		k, _, err := secrets.APIKey(ctx)
		return k, err
	}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errb strings.Builder
	t0 := time.Now()
	if code := runTask(ctx, []string{"start up"}, env, &out, &errb); code != 0 {
		b.Fatalf("exit %d: %s", code, errb.String())
	}
	select {
	case at := <-first:
		return at.Sub(t0)
	default:
		b.Fatal("the planner was never asked")
	}
	return 0
}
