package app

// The harness of app's tests: one Chromium for the binary, the test binary
// run as vroom (cliEnv), and the desktop's App over it with a recorder for
// what the UI receives (desk).

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/internal/apptest"
	"vroom/browser"
	"vroom/internal/modeltest"
)

// cliEnv makes the test binary act as the vroom command, so `vroom run`
// can be tested as a real process (signals, exit codes) without building
// the desktop binary.
const cliEnv = "VROOM_TEST_CLI"

// testBrowser is the test binary's one Chromium; every test opens its own
// tabs.
var testBrowser *browser.Browser

func TestMain(m *testing.M) {
	if os.Getenv(cliEnv) == "1" {
		os.Exit(Main(context.Background(), os.Args[1:], nil, os.Stdout, os.Stderr))
	}
	os.Exit(apptest.Main(m, &testBrowser))
}

// needBrowser skips a test without Chromium, except in CI where it fails.
func needBrowser(tb testing.TB) {
	tb.Helper()
	apptest.NeedBrowser(tb, testBrowser)
}

// recorder is the UI as the tests see it: every event the app emitted.
type recorder struct {
	mu     sync.Mutex
	events []emitted
	wake   chan struct{}
}

type emitted struct {
	name string
	data any
}

func newRecorder() *recorder { return &recorder{wake: make(chan struct{})} }

func (r *recorder) Emit(name string, data any) {
	r.mu.Lock()
	r.events = append(r.events, emitted{name, data})
	close(r.wake)
	r.wake = make(chan struct{})
	r.mu.Unlock()
}

// wait returns the first event named name, at or after index from, that ok
// accepts, and its index; it fails the test after d.
func (r *recorder) wait(t testing.TB, d time.Duration, name string, from int, ok func(any) bool) (any, int) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		for i := from; i < len(r.events); i++ {
			if e := r.events[i]; e.name == name && (ok == nil || ok(e.data)) {
				r.mu.Unlock()
				return e.data, i
			}
		}
		wake := r.wake
		r.mu.Unlock()
		select {
		case <-wake:
		case <-deadline.C:
			t.Fatalf("no %s event within %v", name, d)
		}
	}
}

func (r *recorder) count(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if e.name == name {
			n++
		}
	}
	return n
}

// desk is an App as the window has it, over the shared test browser and
// the scripted model.
type desk struct {
	*App
	ui  *recorder
	srv *modeltest.Server
	dir string
}

func newDesk(t *testing.T, edit ...func(*Options)) *desk {
	t.Helper()
	srv := modeltest.New(t)
	o, ui, dir := deskOptions(t, srv)
	for _, e := range edit {
		e(&o)
	}
	a := New(o)
	a.startSession()
	a.startup(t.Context())
	t.Cleanup(func() { a.stopSession(5 * time.Second) })
	ui.wait(t, 10*time.Second, string(EventBrowser), 0, func(d any) bool { return d.(BrowserState).Ready })
	return &desk{App: a, ui: ui, srv: srv, dir: dir}
}

// deskOptions are an App's options as the window has them, over the shared
// test browser, settings pointing at srv, and a recorder for what the UI
// would receive; dir is the settings and data directory.
func deskOptions(t *testing.T, srv *modeltest.Server) (o Options, ui *recorder, dir string) {
	t.Helper()
	needBrowser(t)
	dir = t.TempDir()
	store := config.Store{Path: filepath.Join(dir, "settings.json")}
	st := config.DefaultSettings()
	st.BaseURL, st.PlannerModel, st.ExecutorModel = srv.URL, "planner", "executor"
	if err := store.Save(st); err != nil {
		t.Fatal(err)
	}
	ui = newRecorder()
	return Options{
		Store: store, Keyring: apptest.Keyring{}, Detect: noServer, Log: quiet,
		Browser: testBrowser, DataDir: dir, Emitter: ui, TextOnly: true,
		EditRun: func(c *agents.Config) { c.Floor = agents.FloorConfig{WordsPerMinute: 60000} },
	}, ui, dir
}

// closeLater closes a tab the test opened when it ends.
func closeLater(t *testing.T, id string) {
	t.Cleanup(func() {
		if tab, err := testBrowser.Tab(id); err == nil {
			tab.Close(context.Background())
		}
	})
}

func hasTab(v TabsView, id string, f func(browser.TabInfo) bool) bool {
	for _, t := range v.Tabs {
		if t.ID == id {
			return f == nil || f(t)
		}
	}
	return false
}
