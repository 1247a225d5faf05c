package main

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// History → Replay: a task run through the omnibox is listed in the
// history; its Replay button plays the run's log as a timeline in the main
// area — the spawn, the agent's step and the end, in order — without
// opening a tab; closing it brings the desk back.
func TestDesktopReplay(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newDeskSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "get a quote from North", "url": site.URL + "/desk/North"}))
	quoteRE := regexp.MustCompile(`Your quote is (\d+)`)
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if r.ToolResults() == 0 {
			return modeltest.Call("click", map[string]any{"ref": modeltest.Ref(r.Text(), "button", "Get quote")})
		}
		if m := quoteRE.FindStringSubmatch(r.Text()); m != nil {
			return modeltest.Call("done", map[string]any{"summary": "quote " + m[1], "success": true})
		}
		return modeltest.Call("read_page", map[string]any{})
	}})
	url, _ := startDesk(t, srv)
	ctx := headless(t, url)

	const task = "get a quote from the North desk"
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`input[name=omnibox]`), task),
		chromedp.WaitVisible(chromedp.CSS(`.hint[data-kind=task]`)),
		chromedp.KeyEvent("\r"),
	); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the run done", `!!document.querySelector('.ended[data-state=done]')`, 90*time.Second)

	before := appTabs(t, ctx)
	tiles := eval[int](t, ctx, `document.querySelectorAll('article.tile').length`)
	if tiles == 0 {
		t.Fatal("no agent tile on the desk after the run")
	}
	if len(before) == 0 {
		t.Fatal("the app has no tabs after the run")
	}
	openReplay(t, ctx, task)
	rows := playToTheEnd(t, ctx)
	checkReplayOrder(t, rows)
	if eval[bool](t, ctx, `!document.querySelector('button.show-all').disabled || document.querySelector('button.play').getAttribute('aria-pressed') === 'true'`) {
		t.Error("the player did not stop at the end")
	}
	rewindShowAllAndLane(t, ctx, len(rows))

	// Replaying drove no browser: the app's tabs are as they were.
	if after := appTabs(t, ctx); !slices.Equal(before, after) {
		t.Errorf("the app's tabs changed during the replay: %v, then %v", before, after)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`section.replay button.close`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the desk back", `!document.querySelector('section.replay') && !!document.querySelector('.desk-view:not(.away)')`, 10*time.Second)
	// As the person left it: the ended run's tiles, visible again.
	waitJS(t, ctx, "the run's tiles back", fmt.Sprintf(`(ts => ts.length === %d && ts.every(e => e.getClientRects().length > 0))([...document.querySelectorAll('article.tile')])`, tiles), 10*time.Second)
	if after := appTabs(t, ctx); !slices.Equal(before, after) {
		t.Errorf("the app's tabs changed after the replay: %v, then %v", before, after)
	}
}

// appTabs returns the app's tab ids, sorted, from its Go side.
func appTabs(t *testing.T, ctx context.Context) []string {
	t.Helper()
	const tabIDs = `window.go.app.App.Tabs().then(v => v.tabs.map(t => t.id).sort())`
	ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](tabIDs, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("the app's tabs: %v", err)
	}
	return ids
}

// openReplay opens the history, finds the run of task and opens its
// replay, which hides the desk and shows the run's header.
func openReplay(t *testing.T, ctx context.Context, task string) {
	t.Helper()
	if err := chromedp.Do(ctx,
		chromedp.Focus(chromedp.CSS(`input[name=omnibox]`)),
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.WaitVisible(chromedp.CSS(`.history .row .replay-run`)),
	); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the run in the history", fmt.Sprintf(`(r => !!r && r.textContent.includes(%q) && r.textContent.includes('done'))(document.querySelector('.history .row'))`, task), 10*time.Second)
	runID := eval[string](t, ctx, `document.querySelector('.history .row').dataset.run`)
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`.history .row .replay-run`)),
		chromedp.WaitVisible(chromedp.CSS(`section.replay .controls`)),
	); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, ctx, `document.querySelector('section.replay').dataset.run`); got != runID {
		t.Fatalf("replay of %q, want the run clicked, %q", got, runID)
	}
	// The grid is hidden, not gone: closing returns to it.
	if eval[bool](t, ctx, `!!document.querySelector('.desk-view:not(.away)')`) {
		t.Fatal("the desk still shows behind the replay")
	}
	header := eval[string](t, ctx, `document.querySelector('section.replay header').innerText`)
	for _, want := range []string{task, "done", "duration", "tokens", "cost"} {
		if !strings.Contains(header, want) {
			t.Errorf("replay header %q lacks %q", header, want)
		}
	}
}

// replayRow is one timeline entry as the page shows it.
type replayRow struct {
	Who  string `json:"who"`
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// playToTheEnd plays the replay at 16× until the run's end shows and
// returns the timeline's entries.
func playToTheEnd(t *testing.T, ctx context.Context) []replayRow {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button.speed[data-speed="16"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "16× pressed", `document.querySelector('button.speed[data-speed="16"]').getAttribute('aria-pressed') === 'true'`, 5*time.Second)
	waitJS(t, ctx, "the run's end in the timeline", `!!document.querySelector('.timeline .entry[data-kind=run_done]')`, 60*time.Second)
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]replayRow](`[...document.querySelectorAll('.timeline .entry')].map(e => ({who: e.dataset.who, kind: e.dataset.kind, text: e.querySelector('.text').textContent}))`))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// checkReplayOrder checks the spawn, agent 1's click, its end and the run's
// end appear in that order, the run's end last.
func checkReplayOrder(t *testing.T, rows []replayRow) {
	t.Helper()
	find := func(pred func(replayRow) bool) int { return slices.IndexFunc(rows, pred) }
	spawn := find(func(r replayRow) bool {
		return r.Kind == "spawn" && r.Who == "planner" && strings.Contains(r.Text, "agent 1") && strings.Contains(r.Text, "get a quote from North")
	})
	step := find(func(r replayRow) bool {
		return r.Kind == "tool" && r.Who == "agent 1" && strings.Contains(r.Text, "click")
	})
	done := find(func(r replayRow) bool {
		return r.Kind == "agent_done" && r.Who == "agent 1" && strings.Contains(r.Text, "quote 10")
	})
	end := find(func(r replayRow) bool { return r.Kind == "run_done" && r.Who == "system" })
	if spawn < 0 || step < 0 || done < 0 || end < 0 || !(spawn < step && step < done && done < end) {
		for i, r := range rows {
			t.Logf("%2d %-8s %-12s %s", i, r.Who, r.Kind, r.Text)
		}
		t.Fatalf("spawn at %d, agent 1's click at %d, its end at %d, the run's end at %d: want all, in that order", spawn, step, done, end)
	}
	if end != len(rows)-1 {
		t.Errorf("the run's end is entry %d of %d, want the last", end, len(rows))
	}
}

// rewindShowAllAndLane rewinds the player, shows all n entries at once,
// then filters to agent 1's lane.
func rewindShowAllAndLane(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`button.speed[data-speed="1"]`)),
		chromedp.Click(chromedp.CSS(`button.play`)), // at the end, Play starts over
	); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the player rewound", `+document.querySelector('.timeline').dataset.count < `+fmt.Sprint(n), 10*time.Second)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button.show-all`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "every entry after Show all", fmt.Sprintf(`document.querySelectorAll('.timeline .entry').length === %d`, n), 10*time.Second)
	// One agent's lane: only what it did, or what was done to it.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button.lane-name[data-lane="agent 1"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "agent 1's lane only", `(es => es.length > 0 && es.every(e => e.dataset.who === 'agent 1' || e.dataset.kind === 'spawn'))([...document.querySelectorAll('.timeline .entry')])`, 10*time.Second)
}
