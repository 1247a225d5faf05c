package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// A model server that makes an agent wait long enough to notice (a 429
// asking for 6 s) is shown on that agent's tile while it lasts, with the
// attempt and the reason, and taken down when the server answers.
func TestDesktopModelWaitOnTile(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newDeskSite(t)
	srv := modeltest.New(t)
	srv.Then("planner", modeltest.Call("spawn", map[string]any{"task": "get a quote", "url": site.URL + "/desk/North"}),
		modeltest.Call("wait", map[string]any{"mode": "all"}), modeltest.Call("done", map[string]any{"summary": "waited", "success": true}))
	srv.Then("executor", modeltest.RateLimited(6*time.Second), modeltest.Call("done", map[string]any{"summary": "the desk is there", "success": true}))
	url, _ := startDesk(t, srv)
	ctx := headless(t, url)
	waitJS(t, ctx, "the browser's first tab", `document.querySelectorAll('li.tab').length >= 1`, 60*time.Second)
	submit(t, ctx, "see the North desk")
	waitJS(t, ctx, "the wait on agent 1's tile", `(e => !!e && e.textContent.includes('model server slow: waiting 6.0 s, retry 1/3 (HTTP 429)'))(document.querySelector('article.tile[data-agent="agent 1"] .wait'))`, 30*time.Second)
	shown := time.Now()
	waitJS(t, ctx, "the wait taken down once answered", `!document.querySelector('article.tile .wait') && !!document.querySelector('article.tile[data-state=done]')`, 20*time.Second)
	if took := time.Since(shown); took < 3*time.Second {
		t.Errorf("the notice was taken down %v after it showed, before the 6 s wait", took)
	}
	waitJS(t, ctx, "the run done", `!!document.querySelector('.ended[data-state=done]')`, 20*time.Second)
}

// A run whose log lands on a full disk stops at once, and the window says
// that the log could not be written, where, why and what to do.
func TestDesktopRunLogDiskFull(t *testing.T) {
	testenv.NeedDisplay(t)
	srv := modeltest.New(t)
	srv.Then("planner", modeltest.Slow(time.Minute, modeltest.Call("done", map[string]any{"summary": "never", "success": true})))
	url, dataDir := startDesk(t, srv)
	testenv.SmallDisk(t, filepath.Join(dataDir, "runs"), 64<<10, 0)
	ctx := headless(t, url)
	waitJS(t, ctx, "the browser's first tab", `document.querySelectorAll('li.tab').length >= 1`, 60*time.Second)
	submit(t, ctx, "anything at all")
	waitJS(t, ctx, "the run stopped for its log", `!!document.querySelector('.ended[data-stop=run_log][role=alert]')`, 15*time.Second)
	said := eval[string](t, ctx, `document.querySelector('.ended[data-stop=run_log]').textContent`)
	for _, want := range []string{"The run log could not be written", filepath.Join(dataDir, "runs"), "no space left on device", "Free some disk space"} {
		if !strings.Contains(said, want) {
			t.Errorf("the window says %q, lacking %q", said, want)
		}
	}
}
