package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"vroom/app/config"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"

	"github.com/chromedp/chromedp"
)

// A correction typed in the room while agents run appears in the transcript
// and reaches every agent's next tool result; the floor ring moves from one
// speaking agent's tile to the other's.
func TestDesktopRoomCorrection(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newDeskSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.PlannerScript(
		map[string]any{"task": "get a quote from North", "url": site.URL + "/desk/North"},
		map[string]any{"task": "get a quote from East", "url": site.URL + "/desk/East"},
	))
	const correction = "use the most recent quote only"
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		last := r.LastText()
		said := strings.Contains(r.Text(), "said (you hold the floor")
		switch {
		case strings.Contains(last, correction):
			return modeltest.Call("done", map[string]any{"summary": "heard the correction", "success": true})
		case !said:
			name := "North"
			if modeltest.SystemContains("East")(r) {
				name = "East"
			}
			return modeltest.Slow(200*time.Millisecond, modeltest.Call("speak", map[string]any{"text": "I am at the " + name + " desk now."}))
		}
		return modeltest.Slow(200*time.Millisecond, modeltest.Call("read_page", map[string]any{}))
	}})
	url, _ := startDesk(t, srv)
	ctx := headless(t, url)
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`input[name=omnibox]`), "get quotes from North and East"),
		chromedp.KeyEvent("\r"),
	); err != nil {
		t.Fatal(err)
	}
	// Both agents speak in turn: the ring is on one tile, then on the other.
	waitJS(t, ctx, "a speaking tile", `!!document.querySelector('article.tile.speaking')`, 60*time.Second)
	first := eval[string](t, ctx, `document.querySelector('article.tile.speaking').dataset.agent`)
	waitJS(t, ctx, "the ring on the other tile", fmt.Sprintf(`!!document.querySelector('article.tile.speaking:not([data-agent=%q])')`, first), 60*time.Second)
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`input[name=correction]`), correction),
		chromedp.KeyEvent("\r"),
	); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the correction in the transcript", fmt.Sprintf(`[...document.querySelectorAll('li[data-kind=correction]')].some(l => l.textContent.includes(%q))`, correction), 10*time.Second)
	waitJS(t, ctx, "the run done", `!!document.querySelector('.ended[data-state=done]')`, 60*time.Second)
	summaries := eval[string](t, ctx, `[...document.querySelectorAll('article.tile .summary')].map(e => e.textContent).join('|')`)
	if strings.Count(summaries, "heard the correction") != 2 {
		t.Fatalf("tile summaries %q: the correction did not reach both agents", summaries)
	}
}

// While an agent's message plays, Unmute in the UI gives the person the
// floor and cuts the message off: the transcript marks it interrupted. Mute
// frees the floor and the run goes on.
func TestDesktopUnmuteInterrupts(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newDeskSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "get a quote from North", "url": site.URL + "/desk/North"}))
	// About 60 ms of audio a character: a long message plays for seconds.
	long := "I am reading the North desk carefully, line by line, and I will tell you everything I find there in great detail."
	var spoke, muted atomic.Bool
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch {
		case spoke.CompareAndSwap(false, true):
			return modeltest.Call("speak", map[string]any{"text": long})
		case muted.Load():
			return modeltest.Call("done", map[string]any{"summary": "stopped talking when the user took the floor", "success": true})
		}
		return modeltest.Slow(200*time.Millisecond, modeltest.Call("read_page", map[string]any{}))
	}})
	url, _ := startDesk(t, srv)
	ctx := headless(t, url)
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`input[name=omnibox]`), "get a quote from North"),
		chromedp.KeyEvent("\r"),
	); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the agent speaking", `!!document.querySelector('article.tile.speaking')`, 60*time.Second)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button.mic`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the message marked interrupted", `!!document.querySelector('li[data-kind=speech] .cut')`, 10*time.Second)
	waitJS(t, ctx, "the person holding the floor", `document.querySelector('.floor').textContent.includes('user') && !document.querySelector('article.tile.speaking')`, 10*time.Second)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button.mic.open`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the floor free again", `document.querySelector('.floor').dataset.floor === 'free'`, 10*time.Second)
	muted.Store(true)
	waitJS(t, ctx, "the run done", `!!document.querySelector('.ended[data-state=done]')`, 60*time.Second)
}

// TestDesktopTakeOverHandBack: the person takes over an agent's tab, the
// agent pauses (no model call, no action) while the person clicks and types
// in its live view, and after the hand-back the agent's next tool result
// carries the note and the page as the person left it; it then finishes the
// job with what the person typed. The same holds for a tab in a remote
// browser: its live view and the person's input go over that browser's own
// CDP connection.
func TestDesktopTakeOverHandBack(t *testing.T) {
	testenv.NeedDisplay(t)
	t.Run("local", func(t *testing.T) { takeOverHandBack(t, nil) })
	t.Run("remote", func(t *testing.T) { takeOverHandBack(t, testenv.RemoteChromium(t, chromium(t))) })
}

// takeOverHandBack runs the scenario with the agents' tabs in remote, or
// in the app's own Chromium when nil.
func takeOverHandBack(t *testing.T, remote *testenv.Remote) {
	var edit func(*config.Settings)
	if remote != nil {
		edit = func(s *config.Settings) { s.Browser.Endpoints = []string{remote.WS} }
	}
	site := newDeskSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "save my email on the signup page", "url": site.URL + "/signup"}))
	const typed, note = "person@example.com", "I typed my email myself; just press Save"
	var clicked atomic.Bool
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		last := r.LastText()
		switch {
		case clicked.Load():
			return modeltest.Call("done", map[string]any{"summary": "saved " + typed, "success": true})
		case strings.Contains(last, "<user_correction>\n"+note) && strings.Contains(last, typed):
			clicked.Store(true)
			return modeltest.Call("click", map[string]any{"ref": modeltest.Ref(r.Text(), "button", "Save")})
		}
		return modeltest.Slow(300*time.Millisecond, modeltest.Call("read_page", map[string]any{}))
	}})
	url, _ := startDeskWith(t, srv, edit)
	t.Cleanup(func() {
		if reqs := srv.Requests("executor"); t.Failed() && len(reqs) > 0 {
			t.Logf("the executor's first request after the take-over ended with:\n%s", reqs[min(firstAfterTakeOver(reqs), len(reqs)-1)].LastText())
		}
	})
	ctx := headless(t, url)
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`input[name=omnibox]`), "save my email on the signup page"),
		chromedp.KeyEvent("\r"),
	); err != nil {
		t.Fatal(err)
	}
	// Once the agent reads the page, the page has loaded: take over then.
	waitJS(t, ctx, "the agent working with a live view", `(() => { const c = document.querySelector('article.tile[data-state=running] canvas'); return !!c && +c.dataset.frames > 0 && document.querySelector('article.tile .meta').textContent.includes('read_page') })()`, 60*time.Second)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button.takeover`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the tile under the person's control", `!!document.querySelector('article.tile[data-state=taken-over] form.handback')`, 30*time.Second)
	callsAtTakeOver := len(srv.Requests("executor"))
	if remote != nil && !strings.Contains(remoteTabs(t, remote), site.URL+"/signup") {
		t.Fatalf("the agent's tab is not in the remote browser: %s", remoteTabs(t, remote))
	}

	// Click the big field through the live view, then type.
	box := eval[[]float64](t, ctx, `(() => { const r = document.querySelector('article.tile canvas').getBoundingClientRect(); return [r.left, r.top, r.width, r.height] })()`)
	if err := chromedp.Do(ctx,
		chromedp.MouseClickXY(box[0]+box[2]/2, box[1]+box[3]*0.2),
		chromedp.KeyEvent(typed),
	); err != nil {
		t.Fatal(err)
	}
	// Whether the keystrokes landed shows in the agent's next observation
	// and in what the site finally saves.
	if msg := eval[string](t, ctx, `document.querySelector('article.tile .live .err')?.textContent ?? ''`); msg != "" {
		t.Fatalf("the live view refused the person's input: %s", msg)
	}
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`form.handback input[name=note]`), note),
	); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests("executor")); n != callsAtTakeOver {
		t.Fatalf("the agent called the model %d times while the person had its tab", n-callsAtTakeOver)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`form.handback button[type=submit]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the run done", `!!document.querySelector('.ended[data-state=done]')`, 60*time.Second)
	if got := site.savedValues(); len(got) != 1 || got[0] != typed {
		t.Fatalf("the site saved %q, want the person's %q", got, typed)
	}
	if !clicked.Load() {
		t.Fatal("the agent never saw the note and the typed value in a tool result")
	}
}

// remoteTabs is the remote browser's own list of its pages (/json/list).
func remoteTabs(t *testing.T, r *testenv.Remote) string {
	t.Helper()
	res, err := http.Get(r.HTTP + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
