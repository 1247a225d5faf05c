package runner

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// The poem: four agents, each in a real tab that shows its line, say one
// line each in order, waiting on the room rather than polling the page.
// The room's transcript is the judge.

var poemLines = []string{"1. The tabs are open wide,", "2. four agents side by side,", "3. each one waits its turn,", "4. and none of them will burn."}

// newPoemSite serves /poem?n=N: the page telling agent N its line.
func newPoemSite(tb testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /poem", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("n"))
		if err != nil || n < 1 || n > len(poemLines) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Poem, line %d</title><h1>The poem</h1><p>Your line (%d of %d): %s</p><p>Say it after line %d has been said.</p>`,
			n, n, len(poemLines), poemLines[n-1], n-1)
	})
	s := httptest.NewServer(mux)
	tb.Cleanup(s.Close)
	return s
}

var poemLineRE = regexp.MustCompile(`Your line \((\d) of \d\): ([^\n<]+)`)

// poemAgent is which agent a request is for (1-4), by its task.
func poemAgent(r *modeltest.Request) int {
	for i := range poemLines {
		if modeltest.SystemContains(fmt.Sprintf("poem line %d:", i+1))(r) {
			return i + 1
		}
	}
	return 0
}

// poemFlow runs the poem as a careful model does: each agent reads its
// line on its page; the first speaks it, each other waits in one call
// until the line before has been said and the floor is free, then
// speaks; then it is done. It returns the tally (a unit per agent) and
// the lines the room heard, in order.
func poemFlow(tb testing.TB) (*flowTally, []string, *harness) {
	s := newPoemSite(tb)
	h := newHarness(tb, nil)
	var spawns []map[string]any
	for i := range poemLines {
		spawns = append(spawns, map[string]any{
			"task": fmt.Sprintf("poem line %d: say your line of the poem, shown on your page, in its turn", i+1),
			"url":  fmt.Sprintf("%s/poem?n=%d", s.URL, i+1),
		})
	}
	h.srv.Script("planner", modeltest.PlannerScript(spawns...))
	f := &flowTally{}
	h.srv.Script("executor", executorFunc(f, func(r *modeltest.Request) (int, modeltest.Reply) {
		n := poemAgent(r)
		m := poemLineRE.FindStringSubmatch(r.Text())
		calls := apptest.Calls(r)
		switch {
		case n == 0 || m == nil:
			return n, apptest.Done("I cannot see my line: "+r.LastText(), false)
		case strings.Contains(calls, "speak "):
			return n, apptest.Done("said my line", !strings.HasPrefix(r.LastText(), "error") && !strings.Contains(r.LastText(), "refused"))
		case n == 1 || strings.Contains(calls, "wait "):
			if n > 1 && !strings.Contains(r.LastText(), fmt.Sprintf("said %q", poemLines[n-2])) {
				return n, apptest.Done("line "+strconv.Itoa(n-1)+" was never said: "+r.LastText(), false)
			}
			return n, apptest.Call("speak", "text", strings.TrimSpace(m[2]))
		}
		return n, apptest.Call("wait", "heard", fmt.Sprintf("%d. ", n-1), "floor_free", true, "timeout_s", 20)
	}))
	res := h.execute(tb, "a four-line poem, one line each, in order")
	if !res.Success {
		tb.Fatalf("the run failed: %+v", res)
	}
	var said []string
	for _, e := range h.Room().Transcript() {
		if e.Kind == agents.EntrySpeech {
			said = append(said, e.Text)
		}
	}
	return f, said, h
}

// TestFlowPoem: four agents in real tabs say lines 1 to 4 in order, no
// speak refused, each with at most two model calls beyond its line's.
func TestFlowPoem(t *testing.T) {
	t.Parallel()
	f, said, h := poemFlow(t)
	if strings.Join(said, "|") != strings.Join(poemLines, "|") {
		t.Fatalf("the room heard, in order:\n%s", strings.Join(said, "\n"))
	}
	if strings.Contains(h.log.String(), `"event":"`+string(agents.LogFloorRejected)+`"`) {
		t.Errorf("a speak was refused:\n%s", h.log.String())
	}
	calls, _ := f.perUnit()
	for n := 1; n <= len(poemLines); n++ {
		if calls[n]-1 > 2 {
			t.Errorf("agent %d made %d model calls: %d beyond its line's, want at most 2", n, calls[n], calls[n]-1)
		}
	}
	t.Logf("calls per agent: %v", calls)
}
