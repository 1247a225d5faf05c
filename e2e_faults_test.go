package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// The app's Chromium SIGKILLed while an agent works. The agent's tile ends
// failed saying its tab is gone, the executor asks the model nothing more,
// the planner's wait reports the failure once, the session relaunches the
// browser, and a new task typed in the omnibox then works end to end in it.
func TestFaultDesktopBrowserKilled(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newDeskSite(t)
	srv := modeltest.New(t)
	const lostTask, newTask = "watch the North desk", "get a quote from the East desk"
	srv.Script("planner", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch {
		case strings.Contains(r.Text(), lostTask) && r.ToolResults() == 0:
			return modeltest.Call("spawn", map[string]any{"task": lostTask, "url": site.URL + "/desk/North"})
		case strings.Contains(r.Text(), lostTask) && strings.Contains(r.LastText(), "its tab is gone"):
			return modeltest.Call("done", map[string]any{"summary": "the browser closed under agent 1", "success": false})
		case r.ToolResults() == 0:
			return modeltest.Call("spawn", map[string]any{"task": newTask, "url": site.URL + "/desk/East"})
		case strings.Contains(r.LastText(), `"running":[]`):
			return modeltest.Call("done", map[string]any{"summary": "all finished", "success": !strings.Contains(r.Text(), `"success":false`)})
		}
		return modeltest.Call("wait", map[string]any{"mode": "all"})
	}})
	// The first agent reads its page once, then thinks for a minute: the
	// browser dies under that model call. The second gets a quote.
	working := make(chan struct{})
	var once sync.Once
	quoteRE := regexp.MustCompile(`Your quote is (\d+)`)
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch {
		case strings.Contains(r.Text(), lostTask) && r.ToolResults() == 0:
			return modeltest.Call("read_page", map[string]any{})
		case strings.Contains(r.Text(), lostTask):
			once.Do(func() { close(working) })
			return modeltest.Slow(time.Minute, modeltest.Call("read_page", map[string]any{}))
		case r.ToolResults() == 0:
			return modeltest.Call("click", map[string]any{"ref": modeltest.Ref(r.Text(), "button", "Get quote")})
		}
		if m := quoteRE.FindStringSubmatch(r.Text()); m != nil {
			return modeltest.Call("done", map[string]any{"summary": "quote " + m[1], "success": true})
		}
		return modeltest.Call("wait", map[string]any{"text": "Your quote is"})
	}})
	url, dataDir := startDesk(t, srv)
	ctx := headless(t, url)
	// Every browser:state the app sends, as the UI receives it.
	eval[bool](t, ctx, `window.browserStates = [], window.runtime.EventsOn('browser:state', (s) => window.browserStates.push(s)), true`)
	waitJS(t, ctx, "the browser's first tab", `document.querySelectorAll('li.tab').length >= 1`, 60*time.Second)

	submit(t, ctx, lostTask)
	select {
	case <-working:
	case <-time.After(60 * time.Second):
		t.Fatal("the agent never got to work")
	}
	waitJS(t, ctx, "the agent's tile running", `!!document.querySelector('article.tile[data-state=running]')`, 10*time.Second)
	died := testenv.KillChromium(t, filepath.Join(dataDir, "profile"))

	waitJS(t, ctx, "the tile failed, saying its tab is gone",
		`(e => !!e && /its tab is gone/.test(e.textContent) && /browser closed/.test(e.textContent))(document.querySelector('article.tile[data-state=failed] .summary'))`, 10*time.Second)
	tileAt := time.Now()
	waitJS(t, ctx, "the run ended", `!!document.querySelector('.ended[data-state=failed]')`, 10*time.Second)
	checkToldOnce(t, srv, lostTask, died)

	waitJS(t, ctx, "the browser relaunched",
		`browserStates.some((s) => !s.ready && /browser closed/.test(s.error ?? '')) && browserStates.at(-1).ready && document.querySelectorAll('li.tab').length >= 1`, 30*time.Second)
	t.Logf("killed → tile failed %v later; browser states %s", tileAt.Sub(died).Round(time.Millisecond),
		eval[string](t, ctx, `JSON.stringify(browserStates)`))

	submit(t, ctx, newTask)
	waitJS(t, ctx, "the new run done", `!!document.querySelector('.ended[data-state=done]')`, 60*time.Second)
	summary := eval[string](t, ctx, `document.querySelector('article.tile[data-state=done] .summary')?.textContent ?? ''`)
	if !strings.HasPrefix(summary, "quote 10") {
		t.Fatalf("the new run's tile says %q", summary)
	}
	if q, _ := site.count(); q != 1 {
		t.Fatalf("the site served %d quotes, want 1", q)
	}
}

// submit types task into the omnibox and presses Enter.
func submit(t *testing.T, ctx context.Context, task string) {
	t.Helper()
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`input[name=omnibox]`), task),
		chromedp.WaitVisible(chromedp.CSS(`.hint[data-kind=task]`)),
		chromedp.KeyEvent("\r"),
	); err != nil {
		t.Fatalf("submit %q: %v", task, err)
	}
}

// checkToldOnce asserts that, for the run of task, the executor asked the
// model nothing after the browser died, and the planner heard of the lost
// tab once: in one wait's result, within 2 s of the death.
func checkToldOnce(t *testing.T, srv *modeltest.Server, task string, died time.Time) {
	t.Helper()
	for _, r := range srv.Requests("executor") {
		if strings.Contains(r.Text(), task) && r.At.After(died) {
			t.Errorf("the executor asked the model %v after the browser died", r.At.Sub(died))
		}
	}
	told := 0
	var heard time.Time
	for _, r := range srv.Requests("planner") {
		if !strings.Contains(r.Text(), task) {
			continue
		}
		// The tool result only: the room's part repeats the conversation.
		result, _, _ := strings.Cut(r.LastText(), "<room>")
		if n := strings.Count(result, "its tab is gone"); n > 0 {
			told += n
			heard = r.At
		}
	}
	if told != 1 {
		t.Fatalf("the planner was told %d times that the tab is gone", told)
	}
	if d := heard.Sub(died); d > 2*time.Second {
		t.Fatalf("the planner heard of the loss %v after the death", d)
	}
	t.Logf("the planner heard of the lost tab once, %v after the death", heard.Sub(died).Round(time.Millisecond))
}
