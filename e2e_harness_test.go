package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"vroom/agents"
	"vroom/app/config"
	"vroom/browser"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

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
	mux.Handle("/", http.FileServer(http.Dir("app/internal/apptest/testdata")))
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
	return startDeskWith(t, srv, nil)
}

// startDeskWith is startDesk with edit applied to the settings (a remote
// browser, a policy) before the app reads them.
func startDeskWith(t *testing.T, srv *modeltest.Server, edit func(*config.Settings)) (string, string) {
	t.Helper()
	configDir, dataDir := t.TempDir(), t.TempDir()
	st := config.DefaultSettings()
	st.BaseURL, st.PlannerModel, st.ExecutorModel = srv.URL, "planner", "executor"
	if edit != nil {
		edit(&st)
	}
	if err := (config.Store{Path: filepath.Join(configDir, "settings.json")}).Save(st); err != nil {
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
	ctx := driver(t, chromium(t), 4*time.Minute)
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

// chromium is the Chromium the tests drive: the one the app itself finds
// (browser.FindChrome), so there is one search list.
func chromium(t *testing.T) string {
	t.Helper()
	p, err := browser.FindChrome()
	if err != nil {
		testenv.Missing(t, fmt.Sprintf("Chromium (apt-get install chromium): %v", err))
	}
	return p
}
