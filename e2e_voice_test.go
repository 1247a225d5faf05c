package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"vroom/agents"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// The room's voice controls end to end: push-to-talk, per-agent voice
// mute and cards answered by voice, in the UI against `wails dev` with
// the real sound server of build/testenv.sh.

// pttKey presses (down) or releases the push-to-talk key, the backquote,
// as a keyboard does; repeat marks a key-repeat press.
func pttKey(t *testing.T, ctx context.Context, down, repeat bool) {
	t.Helper()
	p := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: "`", Code: "Backquote", WindowsVirtualKeyCode: 192, NativeVirtualKeyCode: 192}
	if down {
		p.Type, p.Text, p.UnmodifiedText = input.DispatchKeyEventTypeKeyDown, "`", "`"
		p.AutoRepeat = &repeat
	}
	if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, p); err != nil {
		t.Fatalf("push-to-talk key (down %v): %v", down, err)
	}
}

// startTask types task in the omnibox, submits it, and moves the focus off
// the text field, as a person does by clicking the grid.
func startTask(t *testing.T, ctx context.Context, task string) {
	t.Helper()
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`input[name=omnibox]`), task),
		chromedp.KeyEvent("\r"),
	); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the run's planner strip", `!!document.querySelector('.planner')`, 60*time.Second)
	eval[bool](t, ctx, `(document.activeElement?.blur(), true)`)
}

// Holding ` gives the person the floor while a run is going (key repeat does
// not toggle it), releasing it frees the floor; in a text field the key
// types and the microphone stays shut.
func TestDesktopPushToTalk(t *testing.T) {
	testenv.NeedDisplay(t)
	testenv.NeedPulse(t)
	site := newDeskSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "get a quote from North", "url": site.URL + "/desk/North"}))
	release := make(chan struct{})
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		select {
		case <-release:
			return modeltest.Call("done", map[string]any{"summary": "read the desk", "success": true})
		default:
			return modeltest.Slow(200*time.Millisecond, modeltest.Call("read_page", map[string]any{}))
		}
	}})
	url, _ := startDesk(t, srv)
	ctx := headless(t, url)
	startTask(t, ctx, "get a quote from North")
	waitJS(t, ctx, "the agent's tile", `!!document.querySelector('article.tile[data-state=running]')`, 60*time.Second)

	// In a text field the key is the field's.
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`input[name=correction]`))); err != nil {
		t.Fatal(err)
	}
	pttKey(t, ctx, true, false)
	pttKey(t, ctx, false, false)
	if v := eval[string](t, ctx, `document.querySelector('input[name=correction]').value`); v != "`" {
		t.Fatalf("the correction field holds %q after the key, want the backquote typed", v)
	}
	if held := eval[bool](t, ctx, `!!document.querySelector('button.mic.held, button.mic.open')`); held {
		t.Fatal("the key opened the microphone while typing in a text field")
	}
	eval[bool](t, ctx, `(document.querySelector('input[name=correction]').value = '', document.activeElement.blur(), true)`)

	pressed := time.Now()
	pttKey(t, ctx, true, false)
	waitJS(t, ctx, "the person holding the floor", `document.querySelector('.floor').dataset.floor === 'user' && !!document.querySelector('button.mic.held.open')`, 10*time.Second)
	toFloor := time.Since(pressed)
	if title := eval[string](t, ctx, `document.querySelector('button.mic').title`); !strings.Contains(title, "`") {
		t.Errorf("the mic button's title %q does not name the key", title)
	}
	// A held key repeats: each repeat must leave the microphone open.
	for range 5 {
		pttKey(t, ctx, true, true)
	}
	waitJS(t, ctx, "the microphone still open after key repeat", `document.querySelector('.floor').dataset.floor === 'user' && !!document.querySelector('button.mic.held.open')`, 5*time.Second)
	released := time.Now()
	pttKey(t, ctx, false, false)
	waitJS(t, ctx, "the floor free after release", `document.querySelector('.floor').dataset.floor === 'free' && !document.querySelector('button.mic.open, button.mic.held')`, 10*time.Second)
	// Polled every 50 ms: upper bounds, with the UI's round trips.
	t.Logf("key down to the floor shown as the person's: %v; release to the floor shown free: %v", toFloor.Round(time.Millisecond), time.Since(released).Round(time.Millisecond))
	close(release)
	waitJS(t, ctx, "the run done", `!!document.querySelector('.ended[data-state=done]')`, 60*time.Second)
}

// An agent muted from its tile still speaks into the transcript, but no
// speech is generated for it (the speech endpoint never receives its
// message); the other agent is still spoken aloud.
func TestDesktopAgentVoiceMuted(t *testing.T) {
	testenv.NeedDisplay(t)
	testenv.NeedPulse(t)
	site := newDeskSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.PlannerScript(
		map[string]any{"task": "get a quote from North", "url": site.URL + "/desk/North"},
		map[string]any{"task": "get a quote from East", "url": site.URL + "/desk/East"},
	))
	const mutedMsg, loudMsg = "North desk here, I am reading the quote.", "East desk here, I am reading the quote."
	release := make(chan struct{})
	var mu sync.Mutex
	spoke := map[string]bool{}
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		msg := loudMsg
		if modeltest.SystemContains("North")(r) {
			msg = mutedMsg
		}
		select {
		case <-release:
		default:
			return modeltest.Slow(200*time.Millisecond, modeltest.Call("read_page", map[string]any{}))
		}
		mu.Lock()
		defer mu.Unlock()
		if !spoke[msg] && !strings.Contains(r.LastText(), "the floor is busy") {
			if strings.Contains(r.Text(), "said (you hold the floor") {
				spoke[msg] = true
				return modeltest.Call("done", map[string]any{"summary": "spoke", "success": true})
			}
			return modeltest.Call("speak", map[string]any{"text": msg})
		}
		if spoke[msg] {
			return modeltest.Call("done", map[string]any{"summary": "spoke", "success": true})
		}
		return modeltest.Slow(300*time.Millisecond, modeltest.Call("read_page", map[string]any{}))
	}})
	url, dataDir := startDesk(t, srv)
	ctx := headless(t, url)
	startTask(t, ctx, "get quotes from North and East")
	waitJS(t, ctx, "two tiles", `document.querySelectorAll('article.tile[data-state=running]').length === 2`, 60*time.Second)
	north := eval[string](t, ctx, `[...document.querySelectorAll('article.tile')].find(e => e.textContent.includes('North')).dataset.agent`)
	sel := fmt.Sprintf(`article.tile[data-agent=%q] button.voice`, north)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, north+"'s voice muted", fmt.Sprintf(`document.querySelector(%q).getAttribute('aria-pressed') === 'true'`, sel), 10*time.Second)
	// The planner's strip has the same toggle, both ways.
	const plannerSel = `.planner button.voice[data-agent=planner]`
	for _, pressed := range []string{"true", "false"} {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(plannerSel))); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, "the planner's toggle "+pressed, fmt.Sprintf(`document.querySelector(%q).getAttribute('aria-pressed') === %q`, plannerSel, pressed), 10*time.Second)
	}
	// A reloaded window shows who is muted.
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, north+" still muted after a reload", fmt.Sprintf(`document.querySelector(%q)?.getAttribute('aria-pressed') === 'true'`, sel), 30*time.Second)
	close(release)
	waitJS(t, ctx, "the run done", `!!document.querySelector('.ended[data-state=done]')`, 90*time.Second)

	said := eval[string](t, ctx, `[...document.querySelectorAll('li[data-kind=speech]')].map(l => l.textContent).join('|')`)
	if !strings.Contains(said, mutedMsg) || !strings.Contains(said, loudMsg) {
		t.Fatalf("the transcript %q lacks a message", said)
	}
	checkOnlyLoudSpoke(t, srv, dataDir, north)
}

// checkOnlyLoudSpoke checks that speech was generated for the East agent
// and never for the muted one, whose message is logged speech_muted.
func checkOnlyLoudSpoke(t *testing.T, srv *modeltest.Server, dataDir, muted string) {
	t.Helper()
	var loud bool
	for _, s := range srv.Speeches() {
		if strings.Contains(s.Input, "North desk here") {
			t.Fatalf("speech was generated for the muted agent: %+v", s)
		}
		loud = loud || strings.Contains(s.Input, "East desk here")
	}
	if !loud {
		t.Fatalf("no speech for the agent that was not muted: %d speech requests", len(srv.Speeches()))
	}
	if recs := runLogsMatching(t, dataDir, agents.LogSpeechMuted); len(recs) != 1 || recs[0].Agent != muted {
		t.Errorf("speech_muted records %+v, want one for %s", recs, muted)
	}
	if failed := runLogsMatching(t, dataDir, agents.LogSpeechFailed); len(failed) != 0 {
		t.Errorf("speech failed: %+v", failed)
	}
}

// "Place order" waits on a confirmation; the person holds `, says "deny"
// into the microphone (real audio through the mic feed; the scripted
// transcription returns "deny"), releases it, and the card closes, the site
// has no order and the transcript shows the answer as the person's. The mic
// button's level moves while the person speaks.
func TestDesktopVoiceAnswersCard(t *testing.T) {
	testenv.NeedDisplay(t)
	testenv.NeedPulse(t)
	dir := t.TempDir()
	speech, clip := filepath.Join(dir, "speech.wav"), filepath.Join(dir, "clip.wav")
	if out, err := exec.Command("espeak-ng", "-w", speech, "deny").CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v %s", err, out)
	}
	// Silence around the word: the microphone is surely open before it.
	if out, err := exec.Command("sox", speech, clip, "pad", "0.6", "0.3").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v %s", err, out)
	}
	site := newDeskSite(t)
	srv := modeltest.New(t)
	srv.Transcribe("Deny.")
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "buy the mug in the cart", "url": site.URL + "/shop.html"}))
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch {
		case r.ToolResults() == 0:
			return modeltest.Call("click", map[string]any{"ref": modeltest.Ref(r.Text(), "button", "Place order")})
		case strings.HasPrefix(r.LastText(), "refused"):
			return modeltest.Call("done", map[string]any{"summary": "the user refused the order", "success": false})
		}
		return modeltest.Call("done", map[string]any{"summary": "order placed", "success": true})
	}})
	url, dataDir := startDesk(t, srv)
	ctx := headless(t, url)
	startTask(t, ctx, "buy the mug")
	waitJS(t, ctx, "the confirmation card", `!!document.querySelector('.card[data-kind=confirm]')`, 60*time.Second)

	pttKey(t, ctx, true, false)
	waitJS(t, ctx, "the person holding the floor", `document.querySelector('.floor').dataset.floor === 'user' && !!document.querySelector('button.mic.held.open')`, 10*time.Second)
	played := make(chan error, 1)
	go func() {
		out, err := exec.CommandContext(ctx, "paplay", "-d", "vroom_micfeed", clip).CombinedOutput()
		if err != nil {
			err = fmt.Errorf("%w: %s", err, out)
		}
		played <- err
	}()
	waitJS(t, ctx, "the mic level moving", `parseFloat(document.querySelector('button.mic .level').style.width) > 0`, 10*time.Second)
	if err := <-played; err != nil {
		t.Fatalf("paplay: %v", err)
	}
	released := time.Now()
	pttKey(t, ctx, false, false)
	waitJS(t, ctx, "the card closed", `!document.querySelector('.card')`, 30*time.Second)
	// Polled every 50 ms; includes the upload and the scripted transcription.
	t.Logf("release to the card closed: %v", time.Since(released).Round(time.Millisecond))
	waitJS(t, ctx, "the run failed", `!!document.querySelector('.ended[data-state=failed]')`, 60*time.Second)
	if _, o := site.count(); o != 0 {
		t.Fatalf("the site has %d orders after a spoken deny", o)
	}
	answer := eval[string](t, ctx, `[...document.querySelectorAll('li[data-kind=answer]')].map(l => l.textContent).join('|')`)
	if !strings.Contains(answer, "you") || !strings.Contains(answer, "Deny.") {
		t.Fatalf("the transcript's answer lines: %q", answer)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('li[data-kind=correction]').length`); n != 0 {
		t.Fatalf("the answer also went to the agents as %d corrections", n)
	}
	if ups := srv.Uploads(); len(ups) != 1 {
		t.Fatalf("%d uploads to /audio/transcriptions, want 1", len(ups))
	}
	denied := false
	for _, r := range runLogsMatching(t, dataDir, "confirm_answered") {
		denied = denied || r.Text != "allowed"
	}
	if !denied {
		t.Errorf("the run log has no denied confirmation: %+v", runLogsMatching(t, dataDir, "confirm_answered"))
	}
}
