package runner

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/browser"
	"vroom/internal/modeltest"
	"vroom/internal/testkit"
)

// The runs here go end to end: the runtime in
// agents drives real Chromium tabs through the Tabs adapter, against
// fixture sites with their own state, with the scripted model as the only
// stand-in. Each asserts what the site ended up with.

// TestParallelExecutors: three sub-tasks on three sites run
// at once; their steps interleave in the run log and the run takes less
// than 1.5 times its slowest executor alone.
//
// It does not run beside the other tests: it measures time, and the
// others would load both cores.
func TestParallelExecutors(t *testing.T) {
	// A model's pace: slow enough that the run's shape, not the load of a
	// shared 2-core machine, decides the timing.
	const delay = 600 * time.Millisecond
	sites := []*apptest.Site{apptest.NewSite(t), apptest.NewSite(t), apptest.NewSite(t)}
	names := []string{"North", "East", "South"}
	task := func(i int) string { return "get a quote from the " + names[i] + " desk" }
	script := func(h *harness, which []int) {
		var calls []modeltest.ToolCall
		for _, i := range which {
			calls = append(calls, modeltest.CallOf("spawn", map[string]any{"task": task(i), "url": sites[i].URL + "/quote.html?name=" + names[i]}))
		}
		h.srv.Script("planner",
			modeltest.Step{Match: modeltest.ToolResults(0), Reply: modeltest.Calls(calls...)},
			modeltest.PlannerScript())
		for _, i := range which {
			extra := 1
			if i == 2 {
				extra = 3 // South is the slowest
			}
			h.srv.Script("executor", apptest.QuoteExecutor(modeltest.SystemContains(task(i)), delay, extra))
		}
	}

	// The slowest executor alone.
	alone := newHarness(t, nil)
	prewarm(t, alone, 1)
	script(alone, []int{2})
	res := alone.execute(t, "get a quote from South")
	if !res.Success || len(res.Procs) != 1 {
		t.Fatalf("alone: %+v", res)
	}
	slowest := res.Procs[0].Ended.Sub(res.Procs[0].Started)

	// All three at once.
	h := newHarness(t, nil)
	prewarm(t, h, 3)
	script(h, []int{0, 1, 2})
	start := time.Now()
	res = h.execute(t, "get quotes from North, East and South")
	took := time.Since(start)
	if !res.Success || len(res.Procs) != 3 {
		t.Fatalf("parallel: %+v", res)
	}
	for i, s := range sites {
		s.State(func(s *apptest.Site) {
			want := 1
			if i == 2 {
				want = 2 // once alone, once with the others
			}
			if s.Quotes != want {
				t.Errorf("site %s served %d quotes, want %d", names[i], s.Quotes, want)
			}
		})
	}
	if testing.Verbose() {
		var sb strings.Builder
		agents.Replay(&sb, apptest.RunLog(t, h.log))
		t.Log(sb.String())
	}
	if took >= slowest*3/2 {
		t.Fatalf("the parallel run took %v, the slowest executor alone %v: not < 1.5x", took, slowest)
	}
	t.Logf("parallel run %v, slowest executor alone %v (x%.2f)", took, slowest, float64(took)/float64(slowest))

	// Interleaving: the executors' steps are not one block per executor.
	var order []string
	for _, r := range apptest.RunLog(t, h.log) {
		if r.Event == "tool" && (len(order) == 0 || order[len(order)-1] != r.Agent) {
			order = append(order, r.Agent)
		}
	}
	if len(order) <= 3 {
		t.Fatalf("steps ran one executor after another: %v", order)
	}
}

// TestWaitAny: the planner acts on the first executor to
// finish while the other still runs.
func TestWaitAny(t *testing.T) {
	t.Parallel()
	fast, slow, third := apptest.NewSite(t), apptest.NewSite(t), apptest.NewSite(t)
	h := newHarness(t, nil)
	var mu sync.Mutex
	var slowRunningAtAct bool
	h.srv.Script("planner",
		modeltest.Step{Match: modeltest.ToolResults(0), Reply: modeltest.Calls(
			modeltest.CallOf("spawn", map[string]any{"task": "fast quote", "url": fast.URL + "/quote.html"}),
			modeltest.CallOf("spawn", map[string]any{"task": "slow quote", "url": slow.URL + "/quote.html"}))},
		modeltest.Step{Match: modeltest.ToolResults(2), Reply: apptest.Call("wait", "mode", "any")},
		// The first finished: act on it (spawn a follow-up) while the slow
		// one is still running.
		modeltest.Step{Match: modeltest.ToolResults(3), Func: func(r *modeltest.Request) modeltest.Reply {
			last := r.LastText()
			mu.Lock()
			slowRunningAtAct = strings.Contains(last, `"running":[2]`) && strings.Contains(last, `"summary":"quote`)
			mu.Unlock()
			return apptest.Call("spawn", "task", "follow-up quote", "url", third.URL+"/quote.html")
		}},
		modeltest.PlannerScript(),
	)
	h.srv.Script("executor",
		apptest.QuoteExecutor(modeltest.SystemContains("Your task: fast quote"), 0, 0),
		apptest.QuoteExecutor(modeltest.SystemContains("Your task: follow-up quote"), 0, 0),
		// The slow one keeps reading until the follow-up's quote exists.
		modeltest.Step{Times: -1, Match: modeltest.SystemContains("Your task: slow quote"), Func: func(r *modeltest.Request) modeltest.Reply {
			n := r.ToolResults()
			var q int
			third.State(func(s *apptest.Site) { q = s.Quotes })
			switch {
			case n == 0:
				return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Get quote"))
			case q == 0 || !apptest.QuoteRE.MatchString(r.LastText()):
				return modeltest.Slow(50*time.Millisecond, apptest.Call("read_page"))
			}
			return apptest.Done("slow quote "+apptest.QuoteRE.FindStringSubmatch(r.LastText())[1], true)
		}},
	)
	res := h.execute(t, "three quotes")
	if !res.Success || len(res.Procs) != 3 {
		t.Fatalf("%+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slowRunningAtAct {
		t.Fatal("the planner's wait any did not return the fast executor while the slow one ran")
	}
	for _, s := range []*apptest.Site{fast, slow, third} {
		s.State(func(s *apptest.Site) {
			if s.Quotes != 1 {
				t.Errorf("a site served %d quotes", s.Quotes)
			}
		})
	}
	// The follow-up was spawned before the slow executor finished.
	var slowEnd, followStart time.Time
	for _, p := range res.Procs {
		switch p.Task {
		case "slow quote":
			slowEnd = p.Ended
		case "follow-up quote":
			followStart = p.Started
		}
	}
	if !followStart.Before(slowEnd) {
		t.Fatalf("follow-up started %v, slow ended %v", followStart, slowEnd)
	}
}

// openUserTab opens a tab the way the person would, outside any run.
func openUserTab(t *testing.T, url string) *browser.Tab {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tab, err := testBrowser.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tab.Close(ctx)
	})
	return tab
}

// TestAttachLoggedInTab: a tab already signed in to a site
// is given to spawn; the executor works in it, opens no tab, and keeps the
// session: the note is saved under the signed-in user.
func TestAttachLoggedInTab(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	h := newHarness(t, nil)
	tab := openUserTab(t, s.URL+"/login")
	h.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "save the note 'buy milk' in my account", "tab": tab.ID()}))
	h.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		text, c := r.Text(), apptest.Calls(r)
		switch {
		case !strings.Contains(text, "Signed in as ada"):
			return apptest.Call("read_page") // the page's fetch may not have landed yet
		case !strings.Contains(c, `"buy milk"`):
			return apptest.Call("type", "ref", modeltest.Ref(text, "textbox", "Note"), "text", "buy milk")
		case !strings.Contains(c, "click"):
			return apptest.Call("click", "ref", modeltest.Ref(text, "button", "Save note"))
		case !strings.Contains(text, "Note saved"):
			return apptest.Call("read_page")
		}
		return apptest.Done("saved the note as ada", true)
	}})
	res := h.execute(t, "save a note", tab.ID())
	if !res.Success || res.Procs[0].Tab != tab.ID() {
		t.Fatalf("%+v", res)
	}
	if n := len(h.tabs.Opened()); n != 0 {
		t.Fatalf("the run opened %d tabs", n)
	}
	s.State(func(s *apptest.Site) {
		if len(s.Notes["ada"]) != 1 || s.Notes["ada"][0] != "buy milk" || len(s.Notes) != 1 {
			t.Fatalf("notes %v: the session was lost or the note not saved", s.Notes)
		}
	})
	// The lease ended with the executor: the person can use the tab again.
	if _, err := tab.Observe(context.Background(), browser.ObserveOptions{}); err != nil {
		t.Fatalf("tab still leased after the run: %v", err)
	}
}

// TestAttachLeasedTab: a tab leased to someone else cannot be spawned on;
// the executor fails at its first act, and the planner's wait names the
// holder.
func TestAttachLeasedTab(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	h := newHarness(t, nil)
	tab := openUserTab(t, s.URL+"/quote.html")
	l, err := tab.Lease(context.Background(), "agent 7 of another run")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	h.srv.Script("planner",
		modeltest.Step{Match: modeltest.ToolResults(0), Reply: apptest.Call("spawn", "task", "get a quote", "tab", tab.ID())},
		modeltest.Step{Match: modeltest.ToolResults(1), Reply: apptest.Call("wait", "mode", "all")},
		modeltest.Step{Match: modeltest.ToolResults(2), Func: func(r *modeltest.Request) modeltest.Reply {
			return apptest.Done(r.LastText(), false)
		}})
	res := h.execute(t, "quote")
	if !strings.Contains(res.Summary, `"state":"failed"`) || !strings.Contains(res.Summary, "leased by agent 7 of another run") {
		t.Fatalf("the planner was told %q", res.Summary)
	}
	s.State(func(s *apptest.Site) {
		if s.Quotes != 0 {
			t.Fatal("something acted in the leased tab")
		}
	})
}

// TestRetryOnSameTab: the first executor fails (the button
// needs the terms accepted); the planner retries on the same tab and the
// second executor succeeds there.
func TestRetryOnSameTab(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	h := newHarness(t, nil)
	var tabID string
	h.srv.Script("planner",
		modeltest.Step{Match: modeltest.ToolResults(0), Reply: apptest.Call("spawn", "task", "get a quote", "url", s.URL+"/quote.html?terms=1")},
		modeltest.Step{Match: modeltest.ToolResults(1), Reply: apptest.Call("wait", "mode", "all")},
		modeltest.Step{Match: modeltest.ToolResults(2), Func: func(r *modeltest.Request) modeltest.Reply {
			if !strings.Contains(r.LastText(), `"success":false`) {
				return apptest.Done("expected a failure: "+r.LastText(), false)
			}
			// A new tab's id comes with the wait's result.
			m := regexp.MustCompile(`"tab":"([^"]+)"`).FindStringSubmatch(r.LastText())
			tabID = m[1]
			return apptest.Call("spawn", "task", "retry: accept the terms, then get a quote", "tab", tabID)
		}},
		modeltest.Step{Match: modeltest.ToolResults(3), Reply: apptest.Call("wait", "mode", "all")},
		modeltest.Step{Match: modeltest.ToolResults(4), Func: func(r *modeltest.Request) modeltest.Reply {
			return apptest.Done("retried: "+strings.Join(modeltest.Summaries(r.Text()), "; "), strings.Contains(r.LastText(), `"success":true`))
		}},
	)
	h.srv.Script("executor",
		modeltest.Step{Times: -1, Match: modeltest.SystemContains("Your task: get a quote"), Func: func(r *modeltest.Request) modeltest.Reply {
			switch r.ToolResults() {
			case 0:
				return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Get quote"))
			case 1:
				return apptest.Call("read_page")
			}
			return apptest.Done("could not get a quote: "+apptest.Tail(r.LastText(), 200), false)
		}},
		modeltest.Step{Times: -1, Match: modeltest.SystemContains("Your task: retry"), Func: func(r *modeltest.Request) modeltest.Reply {
			text := r.Text()
			n := r.ToolResults()
			switch n {
			case 0:
				return apptest.Call("click", "ref", modeltest.Ref(text, "checkbox", "terms"))
			case 1:
				return apptest.Call("click", "ref", modeltest.Ref(text, "button", "Get quote"))
			}
			if m := apptest.QuoteRE.FindStringSubmatch(r.LastText()); m != nil {
				return apptest.Done("quote "+m[1], true)
			}
			if n < 10 {
				return apptest.Call("read_page") // the quote's fetch may not have landed yet
			}
			return apptest.Done("no quote", false)
		}},
	)
	res := h.execute(t, "get a quote")
	if !res.Success || len(res.Procs) != 2 {
		t.Fatalf("%+v", res)
	}
	if res.Procs[0].Tab != res.Procs[1].Tab || res.Procs[0].Success || !res.Procs[1].Success {
		t.Fatalf("procs %+v", res.Procs)
	}
	if n := len(h.tabs.Opened()); n != 1 {
		t.Fatalf("opened %d tabs, want 1", n)
	}
	s.State(func(s *apptest.Site) {
		if s.Quotes != 1 {
			t.Fatalf("%d quotes served", s.Quotes)
		}
	})
}

// TestUniqueSkills: two executors add skills to one profile;
// each is told what the other said through its tool results and picks
// another; the site ends with no duplicates.
func TestUniqueSkills(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	h := newHarness(t, nil)
	const pick = "add one skill from [Python, Go, Kubernetes] to the profile that no other agent added, and say which"
	h.srv.Script("planner", modeltest.PlannerScript(
		map[string]any{"task": pick, "url": s.URL + "/profile.html"},
		map[string]any{"task": pick + "; listen to the others first", "url": s.URL + "/profile.html"}))
	heardBeforeTyping := false
	var mu sync.Mutex
	h.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		text := r.Text()
		last := r.LastText()
		listener := strings.Contains(modeltest.MessageText(r.Chat.Messages[0]), "listen to the others first")
		c := apptest.Calls(r)
		typed := regexp.MustCompile(`^type .*"text":"(Python|Go|Kubernetes)"`).FindStringSubmatch(c)
		if m := regexp.MustCompile(`(?m)^type .*"text":"(Python|Go|Kubernetes)"`).FindStringSubmatch(c); m != nil {
			typed = m
		}
		switch {
		case strings.HasPrefix(last, "said"):
			return apptest.Done("added", true)
		case typed == nil && listener && !strings.Contains(text, ": I added"):
			return modeltest.Slow(150*time.Millisecond, apptest.Call("read_page")) // working, listening
		case typed == nil:
			for _, skill := range []string{"Python", "Go", "Kubernetes"} {
				if !strings.Contains(text, "I added "+skill) {
					if listener {
						mu.Lock()
						heardBeforeTyping = strings.Contains(text, "agent 1: I added")
						mu.Unlock()
					}
					return apptest.Call("type", "ref", modeltest.Ref(text, "textbox", "Skill"), "text", skill)
				}
			}
		case !strings.Contains(c, "click"):
			return apptest.Call("click", "ref", modeltest.Ref(text, "button", "Add skill"))
		case !strings.Contains(text, "Skill added: "+typed[1]):
			return apptest.Call("read_page")
		default:
			return modeltest.Slow(10*time.Millisecond, apptest.Call("speak", "text", "I added "+typed[1]))
		}
		return apptest.Done("nothing left to add", false)
	}})
	res := h.execute(t, "add two unique skills")
	if !res.Success {
		reqs := h.srv.Requests("executor")
		t.Log(apptest.Tail(reqs[len(reqs)-1].Text(), 3000))
		t.Fatalf("%+v", res)
	}
	mu.Lock()
	if !heardBeforeTyping {
		t.Error("the second executor chose without hearing the first")
	}
	mu.Unlock()
	s.State(func(s *apptest.Site) {
		seen := map[string]bool{}
		for _, k := range s.Skills {
			if seen[k] {
				t.Fatalf("duplicate skill %q in %v", k, s.Skills)
			}
			seen[k] = true
		}
		if len(s.Skills) != 2 {
			t.Fatalf("skills %v", s.Skills)
		}
	})
}

// TestCanvasSpreadsheet: a canvas spreadsheet filled through
// screenshot and click_at, every value in the right cell.
func TestCanvasSpreadsheet(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	h := newHarness(t, nil)
	want := map[string]string{"B2": "42", "C3": "17", "A5": "total"}
	order := []string{"B2", "C3", "A5"}
	// The sheet's geometry: row header 40 px, columns 100 px, header and
	// rows 30 px. A vision model reads this off the screenshot.
	center := func(cell string) (float64, float64) {
		c := float64(cell[0] - 'A')
		r := float64(cell[1] - '0')
		return 40 + c*100 + 50, 30 + (r-1)*30 + 15
	}
	sawImage := false
	h.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "fill B2=42, C3=17, A5=total", "url": s.URL + "/sheet.html"}))
	h.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		n := r.ToolResults()
		// Per cell: screenshot, click_at, type_focused, press Enter.
		i, phase := n/4, n%4
		if i == len(order) {
			return apptest.Done("filled", true)
		}
		switch phase {
		case 0:
			return apptest.Call("screenshot")
		case 1:
			last, _ := r.LastMessage()
			for _, p := range last.MultiContent {
				if p.Type == openai.ChatMessagePartTypeImageURL && strings.HasPrefix(p.ImageURL.URL, "data:image/png;base64,") {
					sawImage = true
				}
			}
			x, y := center(order[i])
			return apptest.Call("click_at", "x", x, "y", y)
		case 2:
			return apptest.Call("type_focused", "text", want[order[i]])
		}
		return apptest.Call("press", "key", "Enter")
	}})
	res := h.execute(t, "fill the sheet")
	if !res.Success {
		t.Fatalf("%+v", res)
	}
	if !sawImage {
		t.Error("no screenshot reached the model as an image")
	}
	testkit.WaitFor(t, 5*time.Second, "the last cell to reach the server", func() bool {
		var n int
		s.State(func(s *apptest.Site) { n = len(s.Cells) })
		return n == len(want)
	})
	s.State(func(s *apptest.Site) {
		for k, v := range want {
			if s.Cells[k] != v {
				t.Errorf("cell %s = %q, want %q (all: %v)", k, s.Cells[k], v, s.Cells)
			}
		}
	})
}

// TestStartNoticeNamesTheTitle: the transcript names an agent's new tab by
// the page's title and host once it has loaded, never by its target id
// and not by the host alone because the title came a moment late.
func TestStartNoticeNamesTheTitle(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	h := newHarness(t, nil)
	h.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "read the quote page", "url": s.URL + "/quote.html"}))
	h.srv.Script("executor", modeltest.Step{Times: -1, Reply: apptest.Done("read it", true)})
	h.execute(t, "read the quote page")
	var notices []string
	for _, e := range h.Room().Transcript() {
		notices = append(notices, e.Text)
	}
	want := "agent 1 started on Quote desk (127.0.0.1): read the quote page"
	for _, n := range notices {
		if n == want {
			return
		}
	}
	t.Fatalf("no %q in the transcript: %q", want, notices)
}
