package agents

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"vroom/internal/modeltest"
)

// formPage furnishes a tab with a long form: about 60 controls, the size of
// a real sign-up or profile form, so observations weigh what they do in
// practice (~5 KB).
func formPage(ft *fakeTab) {
	ft.title = "Long form"
	for i := 1; i <= 60; i++ {
		ref := fmt.Sprintf("e%d", i)
		if i%6 == 0 {
			ft.controls = append(ft.controls, &fakeControl{ref: ref, role: "button", name: fmt.Sprintf("Next section %d", i/6),
				click: func(t *fakeTab) string { return "section expanded" }})
			continue
		}
		ft.controls = append(ft.controls, &fakeControl{ref: ref, role: "textbox", name: fmt.Sprintf("Field number %d of the application form", i)})
	}
	ft.text = strings.Repeat("Please fill in every field of this application form carefully. ", 10)
}

// longScript makes an executor act for steps steps, navigating every
// fourth step (a full observation) and typing otherwise (a diff), then
// finish.
func longScript(steps int) modeltest.Step {
	return modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		n := r.ToolResults()
		switch {
		case n >= steps:
			return done("filled", true)
		case n%4 == 3:
			return modeltest.Call("navigate", map[string]any{"url": fmt.Sprintf("http://form.test/page%d", n)})
		default:
			return modeltest.Call("type", map[string]any{"ref": fmt.Sprintf("e%d", n%5+1), "text": fmt.Sprintf("value %d", n)})
		}
	}}
}

// runExecutor runs one executor directly on a fresh form tab.
func runExecutor(tb testing.TB, steps int) (*modeltest.Server, *executor) {
	srv := modeltest.New(tb)
	srv.Script("executor", longScript(steps))
	cfg := Config{
		Model: NewModel(ModelConfig{BaseURL: srv.URL, Models: map[Role]string{RoleExecutor: "executor"}}),
		Tabs:  newFakeTabs(),
	}
	r := NewRun(context.Background(), cfg)
	defer r.cancel(nil)
	tab := newFakeTab("tab-1", "http://form.test/")
	formPage(tab)
	tab.onNavigate = func(t *fakeTab, url string) { formPage(t) }
	p, err := r.procs.add("fill the long form", "", func() {}, false)
	if err != nil {
		tb.Fatal(err)
	}
	e := newExecutor(r, p, tab)
	fin, err := e.run(context.Background())
	if err != nil || !fin.success {
		tb.Fatalf("executor: %v %+v", err, fin)
	}
	return srv, e
}

// BenchmarkPromptGrowth measures the prompt at step 10 and step 50 of a
// long run: with old observations shrunk to a line, it grows linearly and
// slowly, not quadratically.
func BenchmarkPromptGrowth(b *testing.B) {
	var t10, t50 int
	for i := 0; i < b.N; i++ {
		srv, _ := runExecutor(b, 55)
		reqs := srv.Requests("executor")
		t10, t50 = len(reqs[9].Body)/4, len(reqs[49].Body)/4
	}
	b.ReportMetric(float64(t10), "tokens-step10")
	b.ReportMetric(float64(t50), "tokens-step50")
	b.ReportMetric(float64(t50)/float64(t10), "ratio")
}

// TestPromptGrowthLinear holds the benchmark's claim as a test.
func TestPromptGrowthLinear(t *testing.T) {
	t.Parallel()
	srv, _ := runExecutor(t, 55)
	reqs := srv.Requests("executor")
	t10, t50 := len(reqs[9].Body)/4, len(reqs[49].Body)/4
	if ratio := float64(t50) / float64(t10); ratio >= 2 {
		t.Fatalf("prompt grew from %d to %d tokens between steps 10 and 50 (x%.2f)", t10, t50, ratio)
	}
	// Exactly two full observations are whole in the latest prompt.
	last := reqs[len(reqs)-1].Text()
	if n := strings.Count(last, "Title: Long form"); n != 2 {
		t.Fatalf("%d full observations in the prompt, want 2", n)
	}
}

// BenchmarkStepOverhead measures everything in a step but the model call:
// decoding the call, the safety gate, acting, diffing, the room update,
// pruning the prompt and logging. The tab here is the in-memory form; the
// same benchmark over real Chromium belongs with the browser adapter in
// app.
func BenchmarkStepOverhead(b *testing.B) {
	const steps = 50
	var overhead time.Duration
	var n int
	for i := 0; i < b.N; i++ {
		start := time.Now()
		_, e := runExecutor(b, steps)
		overhead += time.Since(start) - e.modelTime
		n += e.steps
	}
	b.ReportMetric(float64(overhead.Microseconds())/1000/float64(n), "overhead-ms")
}
