package app

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/browser"
	"vroom/internal/modeltest"
	"vroom/internal/testkit"
)

// The sidebar's model: a new tab appears (with its title once loaded) and
// becomes active, a URL from the omnibox navigates it, closing removes it.
// Every change reaches the UI as a coalesced tabs:changed event.
func TestSessionTabs(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	s := apptest.NewSite(t)
	info, err := d.NewTab(s.URL + "/form.html")
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, info.ID)
	d.ui.wait(t, 10*time.Second, string(EventTabs), 0, func(x any) bool {
		v := x.(TabsView)
		return v.Active == info.ID && hasTab(v, info.ID, func(ti browser.TabInfo) bool { return strings.HasSuffix(ti.URL, "/form.html") })
	})

	res, err := d.Submit(strings.TrimPrefix(s.URL, "http://")+"/quote.html", nil)
	if err != nil || res.Kind != "url" {
		t.Fatalf("submit URL: %+v, %v", res, err)
	}
	_, i := d.ui.wait(t, 10*time.Second, string(EventTabs), 0, func(x any) bool {
		return hasTab(x.(TabsView), info.ID, func(ti browser.TabInfo) bool { return strings.Contains(ti.URL, "/quote.html") && ti.Title != "" })
	})

	other, err := d.NewTab("")
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, other.ID)
	if err := d.ActivateTab(info.ID); err != nil {
		t.Fatal(err)
	}
	if v, _ := d.Tabs(); v.Active != info.ID {
		t.Fatalf("active %s, want %s", v.Active, info.ID)
	}
	if err := d.CloseTab(info.ID); err != nil {
		t.Fatal(err)
	}
	d.ui.wait(t, 10*time.Second, string(EventTabs), i, func(x any) bool {
		v := x.(TabsView)
		return !hasTab(v, info.ID, nil) && v.Active != info.ID && v.Active != ""
	})
	if err := d.ActivateTab(info.ID); err == nil {
		t.Fatal("a closed tab became active")
	}
}

// A burst of tab changes reaches the UI as a few events, not one each.
func TestSessionTabsCoalesced(t *testing.T) {
	t.Parallel()
	d := newDesk(t, func(o *Options) { o.TabsCoalesce = 200 * time.Millisecond })
	s := apptest.NewSite(t)
	ctx, cancel := context.WithCancel(t.Context())
	var mu sync.Mutex
	raw := 0
	counted := make(chan struct{})
	events := testBrowser.Subscribe(ctx)
	go func() {
		defer close(counted)
		for range events {
			mu.Lock()
			raw++
			mu.Unlock()
		}
	}()
	info, err := d.NewTab(s.URL + "/profile.html")
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, info.ID)
	d.ui.wait(t, 10*time.Second, string(EventTabs), 0, func(x any) bool {
		return hasTab(x.(TabsView), info.ID, func(ti browser.TabInfo) bool { return !ti.Loading && ti.Title != "" })
	})
	before := d.ui.count(string(EventTabs))
	mu.Lock()
	raw = 0
	mu.Unlock()
	// The page changes its URL 30 times in 150 ms, as a busy page does.
	tab, _ := testBrowser.Tab(info.ID)
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<title>t</title><script>for(let i=0;i<30;i++)setTimeout(()=>history.replaceState(null,'','?'+i),i*5)</script>")
	}))
	defer busy.Close()
	if _, err := tab.Navigate(t.Context(), busy.URL); err != nil {
		t.Fatal(err)
	}
	d.ui.wait(t, 10*time.Second, string(EventTabs), 0, func(x any) bool {
		return hasTab(x.(TabsView), info.ID, func(ti browser.TabInfo) bool { return strings.HasSuffix(ti.URL, "?29") })
	})
	cancel()
	<-counted
	n := d.ui.count(string(EventTabs)) - before
	t.Logf("%d browser tab events became %d tabs:changed events", raw, n)
	if raw < 10 || n*3 > raw {
		t.Fatalf("%d browser tab events became %d tabs:changed events: not coalesced", raw, n)
	}
}

// Without a window: a task from the omnibox starts a run whose
// executor works in its own tab; its events reach the UI, the run ends and
// the history lists it with its outcome.
func TestSessionRun(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	s := apptest.NewSite(t)
	d.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "get a quote", "url": s.URL + "/quote.html"}))
	d.srv.Script("executor", apptest.QuoteExecutor(modeltest.Any(), 0, 0))
	res, err := d.Submit("get me a quote from the desk", nil)
	if err != nil || res.Kind != "task" || res.RunID == "" {
		t.Fatalf("submit: %+v, %v", res, err)
	}
	if _, err := d.StartRun("another", nil); err == nil {
		t.Fatal("a second run started while one was active")
	}
	d.ui.wait(t, 5*time.Second, string(EventRun), 0, func(x any) bool { return x.(RunView).State == "running" })
	d.ui.wait(t, 30*time.Second, string(EventRoom), 0, func(x any) bool {
		p, ok := x.(agents.Event).Data.(agents.ProcInfo)
		return ok && p.Tab != "" && p.State == agents.ProcRunning
	})
	x, _ := d.ui.wait(t, 60*time.Second, string(EventRun), 0, func(x any) bool { return x.(RunView).State != "running" })
	v := x.(RunView)
	if v.State != "done" || len(v.Procs) != 1 || !strings.Contains(v.Summary, "quote 101") {
		t.Fatalf("run ended %+v", v)
	}
	s.State(func(s *apptest.Site) {
		if s.Quotes != 1 {
			t.Fatalf("the site served %d quotes", s.Quotes)
		}
	})
	h, err := d.History()
	if err != nil || len(h) != 1 {
		t.Fatalf("history %+v, %v", h, err)
	}
	if h[0].ID != res.RunID || h[0].Task != "get me a quote from the desk" || h[0].Outcome != "done" || h[0].Agents != 1 || h[0].Tokens == 0 {
		t.Fatalf("history row %+v", h[0])
	}
	if err := d.StopRun(); err == nil {
		t.Fatal("StopRun with no active run succeeded")
	}
}

// Drag to attach, without a window: a task submitted with a tab attached
// works in that tab, with its session, and opens no new tab.
func TestSessionAttachedTab(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	s := apptest.NewSite(t)
	info, err := d.NewTab(s.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, info.ID)
	d.srv.Script("planner", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if r.ToolResults() == 0 {
			return apptest.Call("spawn", "task", "read the account page", "tab", info.ID)
		}
		if strings.Contains(r.LastText(), `"running":[]`) {
			return apptest.Done("read it", true)
		}
		return apptest.Call("wait", "mode", "all")
	}})
	d.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		return apptest.Done("signed in as ada: "+fmt.Sprint(strings.Contains(r.Text(), "ada")), true)
	}})
	if _, err := d.Submit("summarise my account", []string{info.ID}); err != nil {
		t.Fatal(err)
	}
	x, _ := d.ui.wait(t, 60*time.Second, string(EventRun), 0, func(x any) bool { return x.(RunView).State != "running" })
	v := x.(RunView)
	if v.State != "done" || len(v.Procs) != 1 || v.Procs[0].Tab != info.ID || !strings.Contains(v.Procs[0].Summary, "ada: true") {
		t.Fatalf("run %+v", v)
	}
	r := d.currentRun()
	if opened := r.tabs.Opened(); len(opened) != 0 {
		t.Fatalf("the run opened tabs %v", opened)
	}
	// A tab an agent holds cannot be attached to another run.
	if _, err := d.Submit("x", []string{"no-such-tab"}); err == nil {
		t.Fatal("an unknown tab was attached")
	}
}

// Without a window: "Place order" waits on a confirmation card;
// deny leaves the site without an order, allow once lets it through.
func TestSessionConfirmCard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		answer ConfirmAnswer
		orders int
	}{{"deny", 0}, {"once", 1}} {
		t.Run(string(tc.answer), func(t *testing.T) {
			t.Parallel()
			d := newDesk(t)
			s := apptest.NewSite(t)
			apptest.ScriptBuyer(d.srv, s)
			if _, err := d.Submit("buy the mug", nil); err != nil {
				t.Fatal(err)
			}
			x, _ := d.ui.wait(t, 30*time.Second, string(EventCard), 0, nil)
			c := x.(Card)
			if c.Kind != "confirm" || c.Target != `button "Place order"` || !strings.HasPrefix(c.Action, "click ") || !strings.HasSuffix(c.URL, "/shop.html") || c.Agent == "" {
				t.Fatalf("card %+v", c)
			}
			if cards := d.Cards(); len(cards) != 1 || cards[0].ID != c.ID {
				t.Fatalf("waiting cards %+v", cards)
			}
			s.State(func(s *apptest.Site) {
				if s.Orders != 0 {
					t.Fatal("the order went through before the answer")
				}
			})
			if err := d.AnswerConfirm(c.ID, "maybe"); err == nil {
				t.Fatal("a bad answer was accepted")
			}
			if err := d.AnswerConfirm(c.ID, tc.answer); err != nil {
				t.Fatal(err)
			}
			if err := d.AnswerConfirm(c.ID, tc.answer); err == nil {
				t.Fatal("a card was answered twice")
			}
			d.ui.wait(t, 5*time.Second, string(EventCardClosed), 0, func(x any) bool { return x == c.ID })
			x, _ = d.ui.wait(t, 60*time.Second, string(EventRun), 0, func(x any) bool { return x.(RunView).State != "running" })
			s.State(func(s *apptest.Site) {
				if s.Orders != tc.orders {
					t.Fatalf("the site received %d orders, want %d", s.Orders, tc.orders)
				}
			})
			if want := map[ConfirmAnswer]RunStatus{AnswerDeny: RunFailed, AnswerOnce: RunDone}[tc.answer]; x.(RunView).State != want {
				t.Fatalf("run %+v, want %s", x, want)
			}
		})
	}
}

// The room: a typed correction appears in the transcript and reaches the
// executor's next tool result; StopRun kills the run.
func TestSessionCorrectAndStop(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	s := apptest.NewSite(t)
	d.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "read the profile", "url": s.URL + "/profile.html"}))
	heard := make(chan struct{})
	var once sync.Once
	d.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if strings.Contains(r.LastText(), "use the most recent repo") {
			once.Do(func() { close(heard) })
		}
		return modeltest.Slow(20*time.Millisecond, apptest.Call("read_page"))
	}})
	if err := d.Correct("too early"); err == nil {
		t.Fatal("a correction with no run was accepted")
	}
	if _, err := d.Submit("read my profile", nil); err != nil {
		t.Fatal(err)
	}
	d.ui.wait(t, 30*time.Second, string(EventRoom), 0, func(x any) bool {
		p, ok := x.(agents.Event).Data.(agents.ProcInfo)
		return ok && p.State == agents.ProcRunning
	})
	if err := d.Correct("no, use the most recent repo"); err != nil {
		t.Fatal(err)
	}
	d.ui.wait(t, 5*time.Second, string(EventRoom), 0, func(x any) bool {
		e, ok := x.(agents.Event).Data.(agents.Entry)
		return ok && e.Kind == agents.EntryCorrection && e.Text == "no, use the most recent repo"
	})
	select {
	case <-heard:
	case <-time.After(30 * time.Second):
		t.Fatal("the correction never reached the executor")
	}
	if err := d.StopRun(); err != nil {
		t.Fatal(err)
	}
	x, _ := d.ui.wait(t, 10*time.Second, string(EventRun), 0, func(x any) bool { return x.(RunView).State != "running" })
	if v := x.(RunView); v.State != "failed" || !slices.ContainsFunc(v.Procs, func(p agents.ProcInfo) bool { return p.State == agents.ProcKilled }) {
		t.Fatalf("after stop: %+v", v)
	}
	h, _ := d.History()
	if len(h) != 1 || h[0].Outcome != "killed" {
		t.Fatalf("history %+v", h)
	}
}

// The person browses in the live view: clicks and keys land in the page as
// trusted input; a tab an agent holds refuses them, naming the agent.
func TestSessionInput(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	s := apptest.NewSite(t)
	info, err := d.NewTab(s.URL + "/form.html")
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, info.ID)
	tab, _ := testBrowser.Tab(info.ID)
	obs, err := tab.Observe(t.Context(), browser.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var box [4]float64
	for _, c := range obs.Controls {
		if c.Role == "textbox" {
			box = [4]float64{float64(c.Box[0]), float64(c.Box[1]), float64(c.Box[2]), float64(c.Box[3])}
			break
		}
	}
	if box[2] == 0 {
		t.Fatalf("no textbox in %s", obs.Compact())
	}
	// The live view is half the viewport's size.
	x, y := (box[0]+box[2]/2)/2, (box[1]+box[3]/2)/2
	for _, typ := range []string{"down", "up"} {
		if err := d.PointerInput(info.ID, browser.PointerInput{Type: typ, X: x, Y: y, ViewWidth: 640, ViewHeight: 400, Button: "left", Clicks: 1}); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range "hi" {
		for _, typ := range []string{"down", "up"} {
			if err := d.KeyInput(info.ID, browser.KeyInput{Type: typ, Key: string(k), Code: "Key" + strings.ToUpper(string(k)), Text: string(k)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var got string
	testkit.WaitFor(t, 5*time.Second, "the typed text in the field", func() bool {
		o, err := tab.Observe(t.Context(), browser.ObserveOptions{})
		if err != nil {
			return false
		}
		got = o.Compact()
		return strings.Contains(got, `= "hi"`)
	})

	l, err := tab.Lease(t.Context(), "exec-1")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	err = d.KeyInput(info.ID, browser.KeyInput{Type: "down", Key: "a", Text: "a"})
	if err == nil || !strings.Contains(err.Error(), "exec-1") {
		t.Fatalf("input into a leased tab: %v", err)
	}
	if err := d.CloseTab(info.ID); err == nil || !strings.Contains(err.Error(), "exec-1") {
		t.Fatalf("closing a leased tab: %v", err)
	}
}

// The live endpoint the UI is given serves the tab's frames with its token.
func TestSessionLiveEndpoint(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	s := apptest.NewSite(t)
	info, err := d.NewTab(s.URL + "/form.html")
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, info.ID)
	ep, err := d.LiveEndpoint()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ep.URL+"/live/"+info.ID+"?w=320&h=200&token="+ep.Token, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	h, jpeg, err := readFrame(bufio.NewReader(resp.Body))
	if err != nil || len(jpeg) < 100 || jpeg[0] != 0xFF || jpeg[1] != 0xD8 || h.W == 0 {
		t.Fatalf("frame %+v (%d bytes), %v", h, len(jpeg), err)
	}
}

func TestOmniboxURL(t *testing.T) {
	for in, want := range map[string]string{
		"example.com":            "https://example.com",
		"localhost:8080/x":       "http://localhost:8080/x",
		"http://a.b/c":           "http://a.b/c",
		"summarise example.com":  "",
		"hello":                  "",
		"127.0.0.1:3000":         "http://127.0.0.1:3000",
		"add skills to linkedin": "",
	} {
		got, ok := omniboxURL(in)
		if got != want || ok != (want != "") {
			t.Errorf("omniboxURL(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// A tab dropped on an agent's tile: the agent stops and its sub-task goes
// on in that tab, with the tab's session; no new tab is opened for it.
func TestSessionHandTab(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	s := apptest.NewSite(t)
	mine, err := d.NewTab(s.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, mine.ID)
	// The planner's wait on the first agent returns when the tab is
	// handed over, saying which pid took the task up; it then waits for
	// that one, as a model following the result would.
	movedTo := regexp.MustCompile(`wait for pid (\d+)`)
	d.srv.Script("planner", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		last := r.LastText()
		switch {
		case r.ToolResults() == 0:
			return apptest.Call("spawn", "task", "read the account", "url", s.URL+"/quote.html")
		case strings.Contains(last, "in the person's tab"):
			return apptest.Done("read it", true)
		case movedTo.MatchString(last):
			n, _ := strconv.Atoi(movedTo.FindStringSubmatch(last)[1])
			return apptest.Call("wait", "pids", []int{n}, "mode", "all")
		}
		return apptest.Call("wait", "mode", "all")
	}})
	d.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if strings.Contains(r.Text(), "/account.html") {
			return apptest.Done("read the account in the person's tab", true)
		}
		return modeltest.Slow(50*time.Millisecond, apptest.Call("read_page"))
	}})
	if _, err := d.Submit("read my account", nil); err != nil {
		t.Fatal(err)
	}
	x, _ := d.ui.wait(t, 30*time.Second, string(EventRoom), 0, func(x any) bool {
		p, ok := x.(agents.Event).Data.(agents.ProcInfo)
		return ok && p.State == agents.ProcRunning && p.Tab != ""
	})
	first := x.(agents.Event).Data.(agents.ProcInfo)
	// Hand the tab over once the planner is waiting on the first agent.
	d.ui.wait(t, 30*time.Second, string(EventRoom), 0, func(x any) bool {
		s, ok := x.(agents.Event).Data.(agents.StepInfo)
		return ok && s.Agent == "planner" && s.Tool == "wait"
	})
	if _, err := d.HandTab(first.PID, "no-such-tab"); err == nil {
		t.Fatal("an unknown tab was handed over")
	}
	p, err := d.HandTab(first.PID, mine.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.Tab != mine.ID || p.Task != first.Task || p.PID == first.PID {
		t.Fatalf("handed to %+v, from %+v", p, first)
	}
	x, _ = d.ui.wait(t, 60*time.Second, string(EventRun), 0, func(x any) bool { return x.(RunView).State != "running" })
	v := x.(RunView)
	var got []string
	for _, q := range v.Procs {
		got = append(got, fmt.Sprintf("%d %s %s", q.PID, q.State, q.Tab))
	}
	if len(v.Procs) != 2 || v.Procs[0].State != agents.ProcKilled || v.Procs[1].State != agents.ProcDone || v.Procs[1].Tab != mine.ID {
		t.Fatalf("run %s: %v", v.State, got)
	}
	if opened := d.currentRun().tabs.Opened(); len(opened) != 1 || opened[0] != first.Tab {
		t.Fatalf("the run opened %v, want only %s", opened, first.Tab)
	}
	reqs := d.srv.Requests("planner")
	if want := fmt.Sprintf(`wait {"mode":"all","pids":[%d]}`, p.PID); !strings.Contains(apptest.Calls(reqs[len(reqs)-1]), want) {
		t.Fatalf("the planner never waited for the successor; its calls:\n%s", apptest.Calls(reqs[len(reqs)-1]))
	}
}

// ask_user shows a question card; the person's choice is the agent's answer.
func TestSessionAskCard(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	s := apptest.NewSite(t)
	d.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "pick a mug", "url": s.URL + "/shop.html"}))
	d.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if r.ToolResults() == 0 {
			return apptest.Call("ask_user", "question", "Which colour?", "options", []string{"blue", "red"})
		}
		return apptest.Done("picked "+strings.TrimPrefix(r.LastText(), "the user answered: "), true)
	}})
	if _, err := d.Submit("pick a mug for me", nil); err != nil {
		t.Fatal(err)
	}
	x, _ := d.ui.wait(t, 30*time.Second, string(EventCard), 0, nil)
	c := x.(Card)
	if c.Kind != "ask" || c.Question != "Which colour?" || len(c.Options) != 2 {
		t.Fatalf("card %+v", c)
	}
	if err := d.AnswerAsk(c.ID, "red"); err != nil {
		t.Fatal(err)
	}
	x, _ = d.ui.wait(t, 60*time.Second, string(EventRun), 0, func(x any) bool { return x.(RunView).State != "running" })
	if v := x.(RunView); len(v.Procs) != 1 || !strings.Contains(v.Procs[0].Summary, "picked red") {
		t.Fatalf("run %+v", v)
	}
}
