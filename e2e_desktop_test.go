package main

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"bytes"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"vroom/agents"
	"vroom/app"
	"vroom/internal/modeltest"

	"vroom/internal/testenv"
)

// The desktop end to end: the UI in headless Chromium against `wails dev`,
// the app's own headless Chromium behind it, fixture sites with their own
// state and the scripted model as the only stand-in.

// deskSite is a fixture site: an animated quote desk (so live views have
// frames to show) and a shop whose "Place order" needs a confirmation.
type deskSite struct {
	*httptest.Server
	mu     sync.Mutex
	quotes int
	orders int
	saved  []string
}

const animatedDesk = `<!doctype html><title>%s desk</title>
<style>body{font:16px sans-serif;margin:20px}#spin{width:120px;height:120px}</style>
<h1>%s quote desk</h1>
<div id=spin></div>
<button id=get>Get quote</button>
<p id=out></p>
<script>
let n=0;(function f(){n++;spin.style.background='hsl('+(n*5%%360)+',80%%,50%%)';spin.textContent=n;requestAnimationFrame(f)})();
get.onclick=async()=>{const r=await fetch('/api/quote',{method:'POST'});const j=await r.json();out.textContent='Your quote is '+j.quote+'.'};
</script>`

func newDeskSite(t *testing.T) *deskSite {
	s := &deskSite{}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("app/testdata")))
	mux.HandleFunc("GET /desk/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, animatedDesk, r.PathValue("name"), r.PathValue("name"))
	})
	mux.HandleFunc("POST /api/quote", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.quotes++
		q := 100 + s.quotes
		s.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]int{"quote": q})
	})
	mux.HandleFunc("POST /api/order", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		s.orders++
		s.mu.Unlock()
	})
	mux.HandleFunc("GET /signup", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, signupPage)
	})
	mux.HandleFunc("POST /api/save", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.saved = append(s.saved, string(b))
		s.mu.Unlock()
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// signupPage is one big field and a Save button, easy to hit through a
// scaled live view.
const signupPage = `<!doctype html><title>Sign up</title>
<style>body{margin:0;font:24px sans-serif} input{display:block;box-sizing:border-box;width:100vw;height:45vh;font-size:40px} button{display:block;width:100vw;height:30vh;font-size:40px}</style>
<input id=email aria-label="Email" placeholder="Email"><button id=save>Save</button><p id=out></p>
<script>save.onclick=async()=>{await fetch('/api/save',{method:'POST',body:email.value});out.textContent='Saved '+email.value}</script>`

func (s *deskSite) savedValues() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.saved...)
}

func (s *deskSite) count() (quotes, orders int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.quotes, s.orders
}

// startDesk writes settings pointing at the scripted model and starts
// `wails dev`; it returns the UI's URL and the data directory (run logs).
func startDesk(t *testing.T, srv *modeltest.Server) (string, string) {
	t.Helper()
	configDir, dataDir := t.TempDir(), t.TempDir()
	st := app.DefaultSettings()
	st.BaseURL, st.PlannerModel, st.ExecutorModel = srv.URL, "planner", "executor"
	if err := (app.SettingsStore{Path: filepath.Join(configDir, "settings.json")}).Save(st); err != nil {
		t.Fatal(err)
	}
	url := startWailsDev(t, configDir, "VROOM_DATA_DIR="+dataDir)
	t.Cleanup(func() {
		// A failed scenario's run logs say what the agents did and why.
		if !t.Failed() {
			return
		}
		logs, _ := filepath.Glob(filepath.Join(dataDir, "runs", "*.jsonl"))
		for _, p := range logs {
			b, _ := os.ReadFile(p)
			t.Logf("%s:\n%s", p, b)
		}
	})
	return url, dataDir
}

// headless opens the UI in a headless Chromium.
func headless(t *testing.T, url string) context.Context {
	t.Helper()
	allocCtx, cancel := chromedp.NewExecAllocator(t.Context(),
		chromedp.ExecPath(testenv.Chromium(t)), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(1280, 800))
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`input[name=omnibox]`))); err != nil {
		t.Fatalf("open the UI: %v", err)
	}
	return ctx
}

// eval evaluates a JavaScript expression in the UI.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitJS polls a JavaScript condition in the UI.
func waitJS(t *testing.T, ctx context.Context, what, expr string, d time.Duration) {
	t.Helper()
	pctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if _, err := chromedp.Run(pctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		// What the page showed is what tells a flake from a bug.
		dctx, dcancel := context.WithTimeout(ctx, 2*time.Second)
		defer dcancel()
		text, _ := chromedp.Run(dctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("waiting for %s: %v\npage text:\n%s", what, err, text)
	}
}

var controlRE = regexp.MustCompile(`(?m)^[~+ ]*(e\d+) (\S+) "([^"]*)"`)

func ref(text, role, name string) string {
	found := ""
	for _, m := range controlRE.FindAllStringSubmatch(text, -1) {
		if m[2] == role && strings.Contains(m[3], name) {
			found = m[1]
		}
	}
	return found
}

// plannerSpawns spawns one executor per argument list, waits for all and
// finishes.
func plannerSpawns(spawns ...map[string]any) modeltest.Step {
	return modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		n := r.ToolResults()
		if n < len(spawns) {
			return modeltest.Call("spawn", spawns[n])
		}
		if strings.Contains(r.LastText(), `"running":[]`) {
			return modeltest.Call("done", map[string]any{"summary": "all finished", "success": !strings.Contains(r.Text(), `"success":false`)})
		}
		return modeltest.Call("wait", map[string]any{"mode": "all"})
	}}
}

// Must-show 1: a task typed in the omnibox becomes a run; a tile per
// executor appears with a live view whose frame counter rises; the run
// finishes; the history lists it.
func TestDesktopRunEndToEnd(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newDeskSite(t)
	srv := modeltest.New(t)
	names := []string{"North", "East"}
	var spawns []map[string]any
	for _, n := range names {
		spawns = append(spawns, map[string]any{"task": "get a quote from " + n, "url": site.URL + "/desk/" + n})
	}
	srv.Script("planner", plannerSpawns(spawns...))
	// Executors get the quote, then keep reading until the test has seen
	// their frames rise, then finish.
	release := make(chan struct{})
	quoteRE := regexp.MustCompile(`Your quote is (\d+)`)
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if r.ToolResults() == 0 {
			return modeltest.Call("click", map[string]any{"ref": ref(r.Text(), "button", "Get quote")})
		}
		select {
		case <-release:
			if m := quoteRE.FindStringSubmatch(r.Text()); m != nil {
				return modeltest.Call("done", map[string]any{"summary": "quote " + m[1], "success": true})
			}
		default:
		}
		return modeltest.Slow(300*time.Millisecond, modeltest.Call("read_page", map[string]any{}))
	}})
	url, dataDir := startDesk(t, srv)
	ctx := headless(t, url)

	// Each frame painted in a tile: a tile's canvas counts it in
	// data-frames and shows its delay from the app receiving it to the
	// paint in data-lag, so the test collects them without the UI keeping
	// a record for it.
	eval[bool](t, ctx, `window.paintDelays = [];
new MutationObserver((rs) => {
  for (const r of rs) if (r.target.closest('article.tile') && +r.target.dataset.frames > 0) window.paintDelays.push(+r.target.dataset.lag)
}).observe(document.body, { subtree: true, attributeFilter: ['data-frames'] }), true`)
	const task = "get quotes from the North and East desks"
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`input[name=omnibox]`), task),
		chromedp.WaitVisible(chromedp.CSS(`.hint[data-kind=task]`)),
		chromedp.KeyEvent("\r"),
	); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "two agent tiles", `document.querySelectorAll('article.tile').length === 2`, 60*time.Second)
	// Every tile's frame counter rises: read it twice.
	const frames = `[...document.querySelectorAll('article.tile canvas')].map(c => +c.dataset.frames)`
	waitJS(t, ctx, "frames in both tiles", `(f => f.length === 2 && f.every(n => n >= 3))(`+frames+`)`, 30*time.Second)
	first := eval[[]int](t, ctx, frames)
	waitJS(t, ctx, "frame counters rising", fmt.Sprintf(`%s.every((n, i) => n > %s[i] + 5)`, frames, mustJSON(first)), 30*time.Second)
	second := eval[[]int](t, ctx, frames)
	t.Logf("frames per tile: %v then %v", first, second)
	// The delay from the app receiving a frame from Chromium to the UI
	// having painted it, over every frame painted so far.
	delays := eval[[]float64](t, ctx, `[...window.paintDelays].sort((a, b) => a - b)`)
	if len(delays) > 0 {
		t.Logf("frame to paint over %d frames: p50 %.0f ms, p95 %.0f ms, max %.0f ms", len(delays), delays[len(delays)/2], delays[len(delays)*95/100], delays[len(delays)-1])
	}
	close(release)

	t.Cleanup(func() {
		if t.Failed() {
			for _, r := range srv.Requests("executor") {
				t.Logf("executor request ends: %s", tailOf(r.LastText(), 300))
			}
			t.Logf("UI: %s", eval[string](t, ctx, `document.querySelector('main').innerText + ' | ' + document.querySelector('footer').innerText`))
		}
	})
	waitJS(t, ctx, "the run done", `!!document.querySelector('.ended[data-state=done]')`, 60*time.Second)
	if q, _ := site.count(); q != 2 {
		t.Fatalf("the site served %d quotes, want 2", q)
	}
	summaries := eval[string](t, ctx, `[...document.querySelectorAll('article.tile .summary')].map(e => e.textContent).join('|')`)
	if !strings.Contains(summaries, "quote 10") {
		t.Fatalf("tile summaries %q", summaries)
	}
	// History is one keystroke away.
	if err := chromedp.Do(ctx,
		chromedp.Focus(chromedp.CSS(`input[name=omnibox]`)),
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.WaitVisible(chromedp.CSS(`.history .past`)),
	); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the run in the history", fmt.Sprintf(`(r => r.includes(%q) && r.includes('done') && / tok · \$/.test(r))(document.querySelector('.history .past').textContent)`, task), 10*time.Second)
	logs, _ := filepath.Glob(filepath.Join(dataDir, "runs", "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("run logs %v", logs)
	}
}

func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// center returns the middle of the first element matching css.
func center(t *testing.T, ctx context.Context, css string) (float64, float64) {
	t.Helper()
	p := eval[[]float64](t, ctx, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2] })()`, css))
	return p[0], p[1]
}

// drag drags the element from onto the element to with the mouse, as a
// person does: Chromium starts a real HTML drag (the page's dragstart sets
// its data), which is intercepted and dropped through the input pipeline,
// so dragenter, dragover and drop reach the page as trusted events.
func drag(t *testing.T, ctx context.Context, from, to string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, input.SetInterceptDrags, input.SetInterceptDragsParams{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	ictx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	intercepted := chromedp.Events(ictx, input.DragIntercepted)
	fx, fy := center(t, ctx, from)
	tx, ty := center(t, ctx, to)
	mouse := func(typ input.DispatchMouseEventType, x, y float64) {
		t.Helper()
		p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: 1}
		if _, err := chromedp.Call(ctx, input.DispatchMouseEvent, p); err != nil {
			t.Fatalf("mouse %s: %v", typ, err)
		}
	}
	mouse(input.DispatchMouseEventTypeMousePressed, fx, fy)
	for i := 1; i <= 5; i++ {
		mouse(input.DispatchMouseEventTypeMouseMoved, fx+(tx-fx)*float64(i)/5, fy+(ty-fy)*float64(i)/5)
	}
	var data *input.DragData
	for ev, err := range intercepted {
		if err != nil {
			t.Fatalf("no drag started from %s: %v", from, err)
		}
		data = ev.Data
		break
	}
	for _, typ := range []input.DispatchDragEventType{input.DispatchDragEventTypeDragEnter, input.DispatchDragEventTypeDragOver, input.DispatchDragEventTypeDrop} {
		if _, err := chromedp.Call(ctx, input.DispatchDragEvent, input.DispatchDragEventParams{Type: typ, X: tx, Y: ty, Data: data}); err != nil {
			t.Fatalf("drag %s: %v", typ, err)
		}
	}
	mouse(input.DispatchMouseEventTypeMouseReleased, tx, ty)
}

// runLog reads the only run log in dataDir/runs.
func runLogs(t *testing.T, dataDir string) []agents.LogRecord {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dataDir, "runs", "*.jsonl"))
	var out []agents.LogRecord
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := agents.ReadRunLog(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, recs...)
	}
	return out
}

// Must-show 2: a sidebar tab dragged onto the omnibox becomes a chip and
// the run's executor works in that tab; another tab dragged onto the
// agent's tile hands the agent's sub-task to it. No new tab is opened.
func TestDesktopDragTabs(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newDeskSite(t)
	srv := modeltest.New(t)
	var mu sync.Mutex
	var first string
	srv.Script("planner", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		mu.Lock()
		id := first
		mu.Unlock()
		if r.ToolResults() == 0 {
			if !strings.Contains(r.Text(), id) {
				return modeltest.Call("done", map[string]any{"summary": "the attached tab was not in my prompt", "success": false})
			}
			return modeltest.Call("spawn", map[string]any{"task": "get a quote here", "tab": id})
		}
		// The agent handed the West tab reports last.
		if strings.Contains(r.LastText(), "worked in the West tab") {
			return modeltest.Call("done", map[string]any{"summary": "all finished", "success": true})
		}
		return modeltest.Call("wait", map[string]any{"mode": "all"})
	}})
	// The executor reads until it is in the West desk's tab, then finishes.
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if strings.Contains(r.Text(), "West quote desk") {
			return modeltest.Call("done", map[string]any{"summary": "worked in the West tab", "success": true})
		}
		return modeltest.Slow(100*time.Millisecond, modeltest.Call("read_page", map[string]any{}))
	}})
	url, dataDir := startDesk(t, srv)
	ctx := headless(t, url)

	// Two tabs of the person's: East in the browser's first tab, West in a new one.
	open := func(name string) string {
		t.Helper()
		if err := chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.CSS(`input[name=omnibox]`), site.URL+"/desk/"+name),
			chromedp.KeyEvent("\r"),
		); err != nil {
			t.Fatal(err)
		}
		sel := fmt.Sprintf(`li.tab.active[title$="/desk/%s"]`, name)
		waitJS(t, ctx, name+" in the sidebar", fmt.Sprintf(`!!document.querySelector(%q)`, sel), 30*time.Second)
		return eval[string](t, ctx, fmt.Sprintf(`document.querySelector(%q).dataset.tab`, sel))
	}
	waitJS(t, ctx, "the browser's first tab", `document.querySelectorAll('li.tab').length >= 1`, 60*time.Second)
	east := open("East")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button.new`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "a second tab", `document.querySelectorAll('li.tab').length === 2`, 30*time.Second)
	west := open("West")
	mu.Lock()
	first = east
	mu.Unlock()

	drag(t, ctx, fmt.Sprintf(`li.tab[data-tab=%q]`, east), `form.omnibox`)
	waitJS(t, ctx, "a chip for the East tab", fmt.Sprintf(`!!document.querySelector('.chip[data-tab=%q]')`, east), 10*time.Second)
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`input[name=omnibox]`), "get a quote in this tab"),
		chromedp.KeyEvent("\r"),
	); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the agent's tile on the East tab", fmt.Sprintf(`!!document.querySelector('article.tile[data-state=running] canvas[data-tab=%q]')`, east), 60*time.Second)
	drag(t, ctx, fmt.Sprintf(`li.tab[data-tab=%q]`, west), `article.tile`)
	waitJS(t, ctx, "the run done", `!!document.querySelector('.ended[data-state=done]')`, 60*time.Second)

	if n := eval[int](t, ctx, `document.querySelectorAll('li.tab').length`); n != 2 {
		t.Fatalf("%d tabs after the run, want the person's 2: a new tab was opened", n)
	}
	spawned := map[string]string{}
	for _, r := range runLogs(t, dataDir) {
		if r.Event == "spawn" {
			spawned[r.Tab] = r.Agent
		}
	}
	if len(spawned) != 2 || spawned[east] == "" || spawned[west] == "" {
		t.Fatalf("executors spawned in tabs %v, want East %s and West %s", spawned, east, west)
	}
	summary := eval[string](t, ctx, `[...document.querySelectorAll('article.tile')].map(e => e.dataset.state + ':' + e.textContent).join('|')`)
	if !strings.Contains(summary, "worked in the West tab") {
		t.Fatalf("tiles: %s", summary)
	}
}

// Must-show 3: "Place order" shows a confirmation card with the action, the
// page and the agent; deny leaves the site without an order, allow once
// lets it through.
func TestDesktopConfirmationCard(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newDeskSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", plannerSpawns(map[string]any{"task": "buy the mug in the cart", "url": site.URL + "/shop.html"}))
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch {
		case r.ToolResults() == 0:
			return modeltest.Call("click", map[string]any{"ref": ref(r.Text(), "button", "Place order")})
		case strings.HasPrefix(r.LastText(), "refused"):
			return modeltest.Call("done", map[string]any{"summary": "the user refused the order", "success": false})
		}
		return modeltest.Call("done", map[string]any{"summary": "order placed", "success": true})
	}})
	url, _ := startDesk(t, srv)
	ctx := headless(t, url)

	for i, tc := range []struct {
		button, state string
		orders        int
	}{{"deny", "failed", 0}, {"once", "done", 1}} {
		if err := chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.CSS(`input[name=omnibox]`), "buy the mug"),
			chromedp.KeyEvent("\r"),
			chromedp.WaitVisible(chromedp.CSS(`.card[data-kind=confirm]`)),
		); err != nil {
			t.Fatalf("%s: %v", tc.button, err)
		}
		card := eval[string](t, ctx, `document.querySelector('.card[data-kind=confirm]').textContent`)
		for _, want := range []string{"agent 1", "click e", `button "Place order"`, "/shop.html"} {
			if !strings.Contains(card, want) {
				t.Fatalf("the card %q does not show %q", card, want)
			}
		}
		if _, o := site.count(); o != 0 {
			t.Fatalf("%d orders before the answer", o)
		}
		if dir := os.Getenv("VROOM_SCREENSHOT_DIR"); dir != "" && i == 0 {
			if png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
				os.WriteFile(filepath.Join(dir, "confirm-card-ui.png"), png, 0o644)
			}
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.card button.`+tc.button))); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, "the run "+tc.state, fmt.Sprintf(`!!document.querySelector('.ended[data-state=%s]') && !document.querySelector('.card')`, tc.state), 60*time.Second)
		if _, o := site.count(); o != tc.orders {
			t.Fatalf("after %s the site has %d orders, want %d", tc.button, o, tc.orders)
		}
	}
}

// TestDesktopScreenshots drives the real desktop binary under Xvfb with
// xdotool, against the scripted model and the fixture site, and saves the
// README's screenshots into $VROOM_SCREENSHOT_DIR (build/screenshots to
// refresh them): the empty state, a run with four live tiles, and a
// confirmation card. Without the variable it still runs, into a temporary
// directory: it is the production binary's end-to-end run.
func TestDesktopScreenshots(t *testing.T) {
	dir := os.Getenv("VROOM_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	testenv.NeedDisplay(t)
	site := newDeskSite(t)
	srv := modeltest.New(t)
	var spawns []map[string]any
	for _, n := range []string{"North", "East", "South"} {
		spawns = append(spawns, map[string]any{"task": "get a quote from the " + n + " desk", "url": site.URL + "/desk/" + n})
	}
	spawns = append(spawns, map[string]any{"task": "buy the mug in the cart", "url": site.URL + "/shop.html"})
	srv.Script("planner", plannerSpawns(spawns...))
	shot1, shot2 := make(chan struct{}), make(chan struct{})
	var clicked atomic.Bool
	var placeRef atomic.Value // the buyer's ref for "Place order", from its first view
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		buyer := modeltest.SystemContains("mug in the cart")(r)
		if buyer && r.ToolResults() == 0 {
			placeRef.Store(ref(r.Text(), "button", "Place order"))
		}
		select {
		case <-shot1:
		default:
			return modeltest.Slow(500*time.Millisecond, modeltest.Call("read_page", map[string]any{}))
		}
		switch {
		case buyer && clicked.CompareAndSwap(false, true):
			return modeltest.Call("click", map[string]any{"ref": placeRef.Load()})
		case buyer:
			return modeltest.Call("done", map[string]any{"summary": "the user refused the order", "success": false})
		}
		select {
		case <-shot2:
			return modeltest.Call("done", map[string]any{"summary": "read the desk", "success": true})
		default:
			return modeltest.Slow(500*time.Millisecond, modeltest.Call("read_page", map[string]any{}))
		}
	}})
	configDir, dataDir := t.TempDir(), t.TempDir()
	st := app.DefaultSettings()
	st.BaseURL, st.PlannerModel, st.ExecutorModel = srv.URL, "planner", "executor"
	if err := (app.SettingsStore{Path: filepath.Join(configDir, "settings.json")}).Save(st); err != nil {
		t.Fatal(err)
	}
	bin := buildDesktop(t)
	var logs syncBuffer
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "VROOM_CONFIG_DIR="+configDir, "VROOM_DATA_DIR="+dataDir, "OPENAI_API_KEY=", "NO_AT_BRIDGE=1")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			t.Logf("app output:\n%s", logs.String())
		}
	})
	var window string
	waitFor(t, "window titled Vroom", 60*time.Second, func() bool {
		out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^Vroom$").Output()
		window = strings.TrimSpace(strings.Split(string(out), "\n")[0])
		return window != ""
	})
	shoot := func(name string, minColours int, also ...func(image.Image) bool) {
		t.Helper()
		var last []byte
		waitFor(t, name+" painted", 30*time.Second, func() bool {
			out, err := exec.Command("import", "-window", window, "png:-").Output()
			if err != nil {
				return false
			}
			img, err := png.Decode(bytes.NewReader(out))
			if err != nil {
				return false
			}
			last = out
			for _, f := range also {
				if !f(img) {
					return false
				}
			}
			return distinctColours(img) >= minColours
		})
		if err := os.WriteFile(filepath.Join(dir, name+".png"), last, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The browser's first tab shows in the main view once it is ready.
	waitFor(t, "the browser ready", 30*time.Second, func() bool { return strings.Contains(logs.String(), "browser ready") })
	shoot("desktop-empty", 20)

	xdo := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("xdotool", args...).CombinedOutput(); err != nil {
			t.Fatalf("xdotool %v: %v %s", args, err, out)
		}
	}
	xdo("mousemove", "--window", window, "640", "22", "click", "1")
	xdo("type", "--delay", "20", "get quotes from three desks and buy the mug")
	xdo("key", "Return")
	t.Cleanup(func() {
		if t.Failed() {
			for _, r := range runLogs(t, dataDir) {
				t.Log(agents.FormatRecord(r, r.Time))
			}
		}
	})
	waitFor(t, "four executors working", 60*time.Second, func() bool {
		steps := map[string]int{}
		for _, r := range srv.Requests("executor") {
			for _, task := range []string{"North", "East", "South", "mug in the cart"} {
				if modeltest.SystemContains(task)(r) {
					steps[task]++
				}
			}
		}
		return len(steps) == 4 && steps["North"] >= 6 && steps["East"] >= 6 && steps["South"] >= 6 && steps["mug in the cart"] >= 6
	})
	shoot("desktop-four-tiles", 200)
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "VmRSS:") || strings.HasPrefix(l, "VmHWM:") {
				t.Logf("app process (Chromium and WebKit's web process excluded) with four live tiles: %s", l)
			}
		}
	}
	close(shot1)
	waitFor(t, "the confirmation asked", 30*time.Second, func() bool { return len(runLogsMatching(t, dataDir, agents.LogConfirmAsked)) > 0 })
	// The card is drawn with the warning colour's border (#f0b35a).
	shoot("desktop-confirmation", 200, func(img image.Image) bool {
		n := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Max.X / 2; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if r>>8 > 225 && g>>8 > 165 && g>>8 < 195 && bl>>8 > 75 && bl>>8 < 105 {
					n++
				}
			}
		}
		return n > 300
	})
	close(shot2)
}

// runLogsMatching returns the records of event in the run logs of dataDir.
func runLogsMatching(t *testing.T, dataDir string, event agents.LogEvent) []agents.LogRecord {
	var out []agents.LogRecord
	for _, r := range runLogs(t, dataDir) {
		if r.Event == event {
			out = append(out, r)
		}
	}
	return out
}

// Must-show 5 (typed): a correction typed in the room while agents run
// appears in the transcript and reaches every agent's next tool result; the
// floor ring moves from one speaking agent's tile to the other's.
func TestDesktopRoomCorrection(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newDeskSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", plannerSpawns(
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

// Must-show 5 (unmute): while an agent's message plays, Unmute in the UI
// gives the person the floor and cuts the message off: the transcript marks
// it interrupted. Mute frees the floor and the run goes on.
func TestDesktopUnmuteInterrupts(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newDeskSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", plannerSpawns(map[string]any{"task": "get a quote from North", "url": site.URL + "/desk/North"}))
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

// TestDesktopTakeOverHandBack is issue 6's must-show 4: the person takes
// over an agent's tab, the agent pauses (no model call, no action) while
// the person clicks and types in its live view, and after the hand-back the
// agent's next tool result carries the note and the page as the person
// left it; it then finishes the job with what the person typed.
func TestDesktopTakeOverHandBack(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newDeskSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", plannerSpawns(map[string]any{"task": "save my email on the signup page", "url": site.URL + "/signup"}))
	const typed, note = "person@example.com", "I typed my email myself; just press Save"
	var clicked atomic.Bool
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		last := r.LastText()
		switch {
		case clicked.Load():
			return modeltest.Call("done", map[string]any{"summary": "saved " + typed, "success": true})
		case strings.Contains(last, "<user_correction>\n"+note) && strings.Contains(last, typed):
			clicked.Store(true)
			return modeltest.Call("click", map[string]any{"ref": ref(r.Text(), "button", "Save")})
		}
		return modeltest.Slow(300*time.Millisecond, modeltest.Call("read_page", map[string]any{}))
	}})
	url, _ := startDesk(t, srv)
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

// firstAfterTakeOver is the index of the first request that tells the agent
// of a take-over (0 when none does), for the failure log.
func firstAfterTakeOver(reqs []*modeltest.Request) int {
	for i, r := range reqs {
		if strings.Contains(r.LastText(), "took over your tab") {
			return i
		}
	}
	return 0
}
