package runner

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/browser"
	"vroom/internal/modeltest"
)

// callTimes records when each model request was sent and when its
// response was read to the end, so the time between two calls, the step's
// own work, can be told from the time inside them.
type callTimes struct {
	base http.RoundTripper

	mu    sync.Mutex
	calls [][2]time.Time
}

func (c *callTimes) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := c.base.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	resp.Body = &timedBody{ReadCloser: resp.Body, done: func() {
		c.mu.Lock()
		c.calls = append(c.calls, [2]time.Time{start, time.Now()})
		c.mu.Unlock()
	}}
	return resp, nil
}

type timedBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(b.done)
	}
	return n, err
}

func (b *timedBody) Close() error {
	b.once.Do(b.done)
	return b.ReadCloser.Close()
}

// timedTabs measures the browser's share of a step: the time in Act and
// in Diff/Observe.
type timedTabs struct {
	*Tabs
	mu          sync.Mutex
	act, view   time.Duration
	acts, views int
}

type timedTab struct {
	agents.Tab
	p *timedTabs
}

func (p *timedTabs) Open(ctx context.Context, owner, url string) (agents.Tab, error) {
	t, err := p.Tabs.Open(ctx, owner, url)
	if err != nil {
		return nil, err
	}
	return &timedTab{t, p}, nil
}

func (p *timedTabs) Release(t agents.Tab, owner string) { p.Tabs.Release(t.(*timedTab).Tab, owner) }

func (t *timedTab) Act(ctx context.Context, a agents.Action) (agents.Outcome, error) {
	start := time.Now()
	o, err := t.Tab.Act(ctx, a)
	t.p.mu.Lock()
	t.p.act += time.Since(start)
	t.p.acts++
	t.p.mu.Unlock()
	return o, err
}

func (t *timedTab) Diff(ctx context.Context) (string, error) {
	start := time.Now()
	d, err := t.Tab.Diff(ctx)
	t.p.mu.Lock()
	t.p.view += time.Since(start)
	t.p.views++
	t.p.mu.Unlock()
	return d, err
}

// formFields are the form fixture's text fields, filled in turn.
var formFields = []string{"First name", "Last name", "Email", "Phone", "Street", "City", "Postcode", "Company", "Job title"}

// BenchmarkStepOverhead measures everything in an executor's step but the
// model call, on the form fixture in real Chromium: decoding the call, the
// safety gate, the trusted input and its verification, the diff, the room
// update, pruning the prompt, logging and encoding the next request. It is
// the time between the end of one model response and the sending of the
// next.
func BenchmarkStepOverhead(b *testing.B) {
	needBrowser(b)
	const steps = 20
	s := apptest.NewSite(b)
	srv := modeltest.New(b)
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		n := r.ToolResults()
		switch {
		case n >= steps:
			return apptest.Done("filled", true)
		case n%10 == 9:
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Save draft"))
		}
		f := formFields[n%10%len(formFields)]
		return apptest.Call("type", "ref", modeltest.Ref(r.Text(), "textbox", f), "text", fmt.Sprintf("value %d", n))
	}})
	timer := &callTimes{base: http.DefaultTransport}
	timed := &timedTabs{}
	var overhead time.Duration
	var gaps int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		tabs := NewTabs(ctx, testBrowser, nil, browser.ObserveOptions{})
		timed.Tabs = tabs
		if err := tabs.Prewarm(ctx, 1); err != nil {
			b.Fatal(err)
		}
		timer.mu.Lock()
		timer.calls = nil
		timer.mu.Unlock()
		run := agents.NewRun(ctx, agents.Config{
			Model: agents.NewModel(agents.ModelConfig{BaseURL: srv.URL, Models: map[agents.Role]string{agents.RoleExecutor: "executor"},
				HTTPClient: &http.Client{Transport: timer}}),
			Tabs: timed,
		})
		b.StartTimer()
		if _, err := run.Spawn(ctx, "fill the application form", "", s.URL+"/form.html"); err != nil {
			b.Fatal(err)
		}
		w, err := run.Wait(ctx, nil, true, 0)
		b.StopTimer()
		if err != nil || len(w.Finished) != 1 || !w.Finished[0].Success || w.Finished[0].Steps != steps+1 {
			b.Fatalf("%v %+v", err, w)
		}
		timer.mu.Lock()
		for j := 1; j < len(timer.calls); j++ {
			overhead += timer.calls[j][0].Sub(timer.calls[j-1][1])
			gaps++
		}
		timer.mu.Unlock()
		run.Kill("benchmark iteration over")
		tabs.CloseOpened(ctx)
		cancel()
		b.StartTimer()
	}
	b.ReportMetric(float64(overhead.Microseconds())/1000/float64(gaps), "overhead-ms")
	// The browser's share: performing and verifying the action (with its
	// settle window), and computing what changed.
	b.ReportMetric(float64(timed.act.Microseconds())/1000/float64(timed.acts), "act-ms")
	b.ReportMetric(float64(timed.view.Microseconds())/1000/float64(timed.views), "diff-ms")
}
