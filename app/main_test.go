package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/agents"
	"vroom/browser"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// cliEnv makes the test binary act as the vroom command, so `vroom run`
// can be tested as a real process (signals, exit codes) without building
// the desktop binary.
const cliEnv = "VROOM_TEST_CLI"

// One Chromium per test binary; every test opens its own tabs.
var testBrowser *browser.Browser

func TestMain(m *testing.M) {
	if os.Getenv(cliEnv) == "1" {
		os.Exit(Main(context.Background(), os.Args[1:], nil, os.Stdout, os.Stderr))
	}
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if _, err := browser.FindChrome(); err != nil {
		if testenv.MainMissing(fmt.Sprintf("Chromium (%v)", err)) {
			return 1
		}
		return m.Run()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, err := browser.Launch(ctx, browser.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "launch Chromium:", err)
		return 1
	}
	testBrowser = b
	defer b.Close()
	return m.Run()
}

// needBrowser skips a test without Chromium, except in CI where it fails.
func needBrowser(tb testing.TB) {
	tb.Helper()
	if testBrowser == nil {
		testenv.Missing(tb, "Chromium")
	}
}

// site is one fixture web site with its own state, served from testdata.
type site struct {
	*httptest.Server

	mu      sync.Mutex
	quotes  int
	notes   map[string][]string // user → notes
	skills  []string
	cells   map[string]string
	orders  int
	deletes int
	hits    int
	// attacker is substituted into injection.html.
	attacker string
}

func newSite(t testing.TB) *site {
	s := &site{notes: map[string][]string{}, cells: map[string]string{}}
	mux := http.NewServeMux()
	files := http.FileServer(http.Dir("testdata"))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits++
		s.mu.Unlock()
		files.ServeHTTP(w, r)
	})
	mux.HandleFunc("/injection.html", s.injection)
	mux.HandleFunc("POST /api/quote", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.quotes++
		q := 100 + s.quotes
		s.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]int{"quote": q})
	})
	s.handleAccount(mux)
	s.handleSkillsAndCells(mux)
	mux.HandleFunc("POST /api/order", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.orders++
		s.mu.Unlock()
	})
	mux.HandleFunc("POST /api/delete-account", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.deletes++
		s.mu.Unlock()
		io.WriteString(w, "<p>Your account is gone.</p>")
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// injection serves injection.html with the attacker's address in it.
func (s *site) injection(w http.ResponseWriter, r *http.Request) {
	b, err := os.ReadFile("testdata/injection.html")
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	w.Write(bytes.ReplaceAll(b, []byte("{{ATTACKER}}"), []byte(s.attacker)))
}

// handleAccount serves signing in (a session cookie) and a signed-in
// user's own data.
func (s *site) handleAccount(mux *http.ServeMux) {
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "ada", Path: "/", HttpOnly: true})
		http.Redirect(w, r, "/account.html", http.StatusFound)
	})
	user := func(r *http.Request) string {
		c, err := r.Cookie("session")
		if err != nil {
			return ""
		}
		return c.Value
	}
	mux.HandleFunc("GET /api/me", func(w http.ResponseWriter, r *http.Request) {
		u := user(r)
		if u == "" {
			http.Error(w, "not signed in", http.StatusUnauthorized)
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"user": u})
	})
	mux.HandleFunc("POST /api/note", func(w http.ResponseWriter, r *http.Request) {
		u := user(r)
		if u == "" {
			http.Error(w, "not signed in", http.StatusUnauthorized)
			return
		}
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.notes[u] = append(s.notes[u], string(b))
		s.mu.Unlock()
	})
}

// serveSkills serves a profile's skills at /api/skills, guarded by mu:
// GET lists them, POST adds its body (duplicates are kept: the agents
// must avoid them).
func serveSkills(mux *http.ServeMux, mu *sync.Mutex, skills *[]string) {
	mux.HandleFunc("GET /api/skills", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		list := append([]string{}, *skills...)
		mu.Unlock()
		json.NewEncoder(w).Encode(list)
	})
	mux.HandleFunc("POST /api/skills", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		*skills = append(*skills, string(b))
		mu.Unlock()
	})
}

// handleSkillsAndCells serves the profile's skills and the spreadsheet's
// cells.
func (s *site) handleSkillsAndCells(mux *http.ServeMux) {
	serveSkills(mux, &s.mu, &s.skills)
	mux.HandleFunc("POST /api/cells", func(w http.ResponseWriter, r *http.Request) {
		var c struct{ Cell, Value string }
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		s.mu.Lock()
		s.cells[c.Cell] = c.Value
		s.mu.Unlock()
	})
}

func (s *site) state(f func(s *site)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

// syncBuffer is a run log destination safe for concurrent writes and reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) records(t testing.TB) []agents.LogRecord {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := agents.ReadRunLog(bytes.NewReader(s.b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// harness is one run over the real browser and the scripted model.
type harness struct {
	*agents.Run
	srv  *modeltest.Server
	tabs *Tabs
	log  *syncBuffer
}

func newHarness(t testing.TB, edit func(*agents.Config)) *harness {
	t.Helper()
	needBrowser(t)
	srv := modeltest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	tabs := NewTabs(ctx, testBrowser, browser.ObserveOptions{})
	t.Cleanup(func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		tabs.CloseOpened(cctx)
		cancel()
	})
	buf := &syncBuffer{}
	cfg := agents.Config{
		Model: agents.NewModel(agents.ModelConfig{BaseURL: srv.URL, APIKey: "sk-test-key",
			Models:  map[agents.Role]string{agents.RolePlanner: "planner", agents.RoleExecutor: "executor"},
			Backoff: time.Millisecond}),
		Tabs:  tabs,
		Log:   agents.NewRunLog(buf, nil),
		Floor: agents.FloorConfig{WordsPerMinute: 60000},
	}
	if edit != nil {
		edit(&cfg)
	}
	cfg.Log.Redact("sk-test-key")
	return &harness{Run: agents.NewRun(ctx, cfg), srv: srv, tabs: tabs, log: buf}
}

// execute runs task and fails the test if the run errs or a model request
// found no script step.
func (h *harness) execute(t testing.TB, task string, tabs ...string) agents.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := h.Execute(ctx, task, tabs...)
	if err != nil {
		t.Fatalf("run failed: %v (result %+v)", err, res)
	}
	if um := h.srv.Unmatched(); len(um) > 0 {
		t.Fatalf("%d model requests matched no script step; the first, for %s, ended with: %s", len(um), um[0].Role, tail(um[0].Text(), 2000))
	}
	return res
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

func done(summary string, success bool) modeltest.Reply {
	return modeltest.Call("done", map[string]any{"summary": summary, "success": success})
}

func call(name string, kv ...any) modeltest.Reply {
	args := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		args[kv[i].(string)] = kv[i+1]
	}
	return modeltest.Call(name, args)
}

// calls lists the tool calls the agent has made so far, one "name args" a
// line.
func calls(r *modeltest.Request) string {
	var b strings.Builder
	for _, m := range r.Chat.Messages {
		for _, tc := range m.ToolCalls {
			b.WriteString(tc.Function.Name + " " + tc.Function.Arguments + "\n")
		}
	}
	return b.String()
}

// plannerScript spawns one executor per spawn argument list, then waits for
// all and finishes with the executors' summaries.
func plannerScript(spawns ...map[string]any) modeltest.Step {
	return modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		n := r.ToolResults()
		if n < len(spawns) {
			return modeltest.Call("spawn", spawns[n])
		}
		last := r.LastText()
		if strings.Contains(last, `"running":[]`) {
			return done("all finished: "+summaries(r), !strings.Contains(r.Text(), `"success":false`))
		}
		return call("wait", "mode", "all")
	}}
}

var summaryRE = regexp.MustCompile(`"summary":"([^"]*)"`)

func summaries(r *modeltest.Request) string {
	var out []string
	for _, m := range summaryRE.FindAllStringSubmatch(r.Text(), -1) {
		out = append(out, m[1])
	}
	return strings.Join(out, "; ")
}

// waitFor polls cond until it holds or the deadline passes; each poll is
// triggered by the model server's activity or a short tick.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		<-tick.C
	}
}

// prewarm opens n blank tabs ahead, as vroom run does while the planner's
// first call is under way.
func prewarm(t testing.TB, h *harness, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.tabs.Prewarm(ctx, n); err != nil {
		t.Fatal(err)
	}
}

// tctx is a context for one test's browser calls.
func tctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// scriptBuyer scripts a run whose one executor clicks the shop fixture's
// "Place order" and then reports honestly whether the click was refused.
func scriptBuyer(srv *modeltest.Server, s *site) {
	srv.Script("planner", plannerScript(map[string]any{"task": "buy the mug in the cart", "url": s.URL + "/shop.html"}))
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch {
		case r.ToolResults() == 0:
			return call("click", "ref", modeltest.Ref(r.Text(), "button", "Place order"))
		case strings.HasPrefix(r.LastText(), "refused"):
			return done("I did not place the order: the user refused it", false)
		}
		return done("order placed", true)
	}})
}

// confirmations records what a run asked the person, answering each with
// one decision.
type confirmations struct {
	mu    sync.Mutex
	asked []agents.Confirmation
}

// answering is a Config edit that sends the run's confirmations to c.
func (c *confirmations) answering(d agents.Decision) func(*agents.Config) {
	return func(cfg *agents.Config) {
		cfg.Confirm = agents.ConfirmFunc(func(ctx context.Context, cf agents.Confirmation) (agents.Decision, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.asked = append(c.asked, cf)
			return d, nil
		})
	}
}

func (c *confirmations) list() []agents.Confirmation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]agents.Confirmation(nil), c.asked...)
}
