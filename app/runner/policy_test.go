package runner

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"vroom/agents"
	"vroom/app/config"
	"vroom/internal/modeltest"
)

// Settings' allow and block lists take host:port (Settings documents
// localhost:8080), and a run over a real tab honours them: two sites on one
// address, told apart by their port. An allowed host:port is reached and
// the other port is refused as not allowed; a blocked host:port is refused
// and the other port is reached. The executor first navigates within the
// site it started on, so the lists are also applied to where an action
// landed; the refused site is never sent a request.
func TestHostPortListsNavigateARealTab(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	for _, tc := range []struct {
		name  string
		lists func(start, other string) config.Navigation
		say   string
	}{
		{"allowed", func(start, other string) config.Navigation { return config.Navigation{AllowedHosts: []string{start}} }, "is not on the allow list"},
		{"blocked", func(start, other string) config.Navigation { return config.Navigation{BlockedHosts: []string{other}} }, "is on the block list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start, other := newCountedSite(t), newCountedSite(t)
			nav := tc.lists(start.host(t), other.host(t))
			log := runHostPortTask(t, nav, start.URL+"/start", start.URL+"/more", other.URL+"/other")
			if n := start.hits.Load(); n != 2 {
				t.Fatalf("%s: the run's own site %s got %d requests, want 2 (the start and the page navigated to)", tc.name, start.host(t), n)
			}
			if n := other.hits.Load(); n != 0 {
				t.Fatalf("%s: the refused site %s got %d requests", tc.name, other.host(t), n)
			}
			var why string
			for _, r := range log {
				if r.Event == agents.LogPolicyDenied {
					why = r.Error
				}
			}
			if want := other.host(t) + " " + tc.say; !strings.Contains(why, want) {
				t.Fatalf("%s: the run log's refusal is %q, want it to say %q", tc.name, why, want)
			}
		})
	}
}

// countedSite is a page server that counts the requests it gets.
type countedSite struct {
	*httptest.Server
	hits atomic.Int64
}

func newCountedSite(t *testing.T) *countedSite {
	s := &countedSite{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/favicon.ico" {
			http.NotFound(w, r)
			return
		}
		s.hits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><title>Page</title><h1>A page</h1><a href="/more">More</a>`)) // a test server; the client's loss is seen by the test
	}))
	t.Cleanup(s.Close)
	return s
}

// host is the site's host:port, as a person writes it in Settings.
func (s *countedSite) host(t *testing.T) string {
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// runHostPortTask runs one executor that starts at startURL and navigates
// to each of goTo in turn, under Settings' lists nav, through the run
// builder every face uses, and returns the run's log.
func runHostPortTask(t *testing.T, nav config.Navigation, startURL string, goTo ...string) []agents.LogRecord {
	t.Helper()
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch {
		case r.ToolResults() == 0:
			return modeltest.Call("spawn", map[string]any{"task": "open the other page", "url": startURL})
		case strings.Contains(r.LastText(), `"running":[]`):
			return modeltest.Call("done", map[string]any{"summary": "finished", "success": true})
		}
		return modeltest.Call("wait", map[string]any{"mode": "all"})
	}})
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if n := r.ToolResults(); n < len(goTo) {
			return modeltest.Call("navigate", map[string]any{"url": goTo[n]})
		}
		return modeltest.Call("done", map[string]any{"summary": "the last page was refused", "success": false})
	}})
	st := config.DefaultSettings()
	st.BaseURL, st.PlannerModel, st.ExecutorModel = srv.URL, "planner", "executor"
	nav.AskBeforeLeaving = false // the lists alone decide
	st.Navigation = nav
	b, err := BuildRun(t.Context(), RunSpec{Task: "open the other page", Browser: testBrowser, Settings: st, DataDir: t.TempDir(), CloseTabs: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Execute(t.Context()); err != nil {
		t.Fatalf("the run failed: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if um := srv.Unmatched(); len(um) > 0 {
		t.Fatalf("%d model requests matched no script step", len(um))
	}
	f, err := os.Open(b.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := agents.ReadRunLog(f)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
