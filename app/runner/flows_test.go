package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testkit"
)

// The flows through real sites, end to end: real Chromium through the Tabs
// adapter, fixture pages that behave like real sites (apptest.Pages, flows/), and
// a scripted model that acts as a careful model does — it acts only on
// refs it was shown, calls observe when the ref it needs is not there,
// picks the suggestion whose name is exactly the skill, and reads every
// result honestly. Each flow counts the model calls it took.

// flowSite serves the flows/ fixture pages with the APIs its pages call, recording
// what they did.
type flowSite struct {
	*httptest.Server

	mu       sync.Mutex
	skills   []string
	suggests []string // queries the typeahead asked
	picks    []string
	orders   []string
	late     map[string]chan struct{} // held responses of late.html, by event
}

// skillCatalog is what the typeahead suggests from. For every skill the
// flows add there are decoys containing its name, and they come first.
var skillCatalog = []string{"Go", "Golang Web Services", "Google Cloud Platform", "Go-to-Market Strategy",
	"Rust", "Rust Embedded", "Trusted Computing", "SQL", "SQL Server", "NoSQL", "PostgreSQL", "MySQL"}

// suggestDelay is the typeahead server's answer time, as a busy site's.
const suggestDelay = 300 * time.Millisecond

func newFlowSite(t testing.TB) *flowSite {
	s := &flowSite{late: map[string]chan struct{}{}}
	for _, ev := range lateEvents {
		s.late[ev] = make(chan struct{})
	}
	mux := http.NewServeMux()
	mux.Handle("/", apptest.PageServer("flows"))
	apptest.ServeSkills(mux, &s.mu, &s.skills)
	mux.HandleFunc("GET /api/skills/suggest", s.suggest)
	mux.HandleFunc("POST /api/pick", func(w http.ResponseWriter, r *http.Request) {
		item := r.FormValue("item")
		s.mu.Lock()
		s.picks = append(s.picks, item)
		s.mu.Unlock()
		fmt.Fprintf(w, "<!doctype html><title>Picked</title><p>You picked %s.</p>", item)
	})
	mux.HandleFunc("POST /api/checkout", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		id := fmt.Sprintf("A%d", 1001+len(s.orders))
		s.orders = append(s.orders, id)
		s.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]string{"id": id})
	})
	mux.HandleFunc("GET /api/late/{ev}", s.held)
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// suggest answers the typeahead after suggestDelay: the catalog's skills
// containing q, decoys first and the exact match last.
func (s *flowSite) suggest(w http.ResponseWriter, r *http.Request) {
	q := strings.ToLower(r.URL.Query().Get("q"))
	s.mu.Lock()
	s.suggests = append(s.suggests, q)
	s.mu.Unlock()
	select {
	case <-time.After(suggestDelay):
	case <-r.Context().Done():
		return
	}
	var list, exact []string
	for _, c := range skillCatalog {
		switch lc := strings.ToLower(c); {
		case lc == q:
			exact = append(exact, c)
		case strings.Contains(lc, q):
			list = append(list, c)
		}
	}
	json.NewEncoder(w).Encode(append(list, exact...))
}

func (s *flowSite) state(f func(s *flowSite)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

// flowTally is what a flow cost: the executor's model calls, by the unit
// of work the flow repeats (a skill), and what each result said.
type flowTally struct {
	mu      sync.Mutex
	calls   []string // "unit tool" per executor model call
	results []string // the tool result each call read
	first   string   // the first prompt, with the first observation
}

func (f *flowTally) record(unit int, tool string, r *modeltest.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf("%d %s", unit, tool))
	if f.first == "" {
		f.first = r.Text()
	}
	if r.ToolResults() > 0 {
		f.results = append(f.results, r.LastText())
	}
}

// perUnit counts the calls of each unit, and its observe calls.
func (f *flowTally) perUnit() (calls, observes map[int]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	calls, observes = map[int]int{}, map[int]int{}
	for _, c := range f.calls {
		var u int
		var tool string
		fmt.Sscanf(c, "%d %s", &u, &tool)
		calls[u]++
		if tool == "observe" {
			observes[u]++
		}
	}
	return calls, observes
}

func (f *flowTally) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// noEffectResults returns the results that said the action had no
// visible effect.
func (f *flowTally) noEffectResults() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.results {
		if strings.Contains(r, agents.NoEffect) {
			out = append(out, r)
		}
	}
	return out
}

// executorFunc scripts the executor with next, which returns the unit of
// work and the reply; every call is tallied.
func executorFunc(f *flowTally, next func(r *modeltest.Request) (int, modeltest.Reply)) modeltest.Step {
	return modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		unit, rep := next(r)
		tool := "?"
		if len(rep.ToolCalls) > 0 {
			tool = rep.ToolCalls[0].Name
		}
		f.record(unit, tool, r)
		return rep
	}}
}

// runFlow runs one task in one executor at page and returns its tally.
func runFlow(tb testing.TB, h *harness, task, page string, f *flowTally, next func(r *modeltest.Request) (int, modeltest.Reply)) agents.Result {
	tb.Helper()
	h.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": task, "url": page}))
	h.srv.Script("executor", executorFunc(f, next))
	res := h.execute(tb, task)
	if !res.Success {
		tb.Fatalf("the run failed: %+v", res)
	}
	if n := len(h.srv.Requests("executor")); n != f.total() {
		tb.Fatalf("the model server saw %d executor requests, the script %d", n, f.total())
	}
	tb.Logf("%d executor calls: %v", f.total(), f.calls)
	return res
}

// TestFlowSkills: three skills added through the dialog's
// typeahead, each in at most five calls plus one observe, and no result
// claims an action had no visible effect.
func TestFlowSkills(t *testing.T) {
	s := newFlowSite(t)
	f := skillsFlow(t, s)
	want := []string{"Go", "Rust", "SQL"}
	s.state(func(s *flowSite) {
		if !slices.Equal(s.skills, want) {
			t.Fatalf("the profile has skills %q, want %q", s.skills, want)
		}
	})
	calls, observes := f.perUnit()
	for i := range want {
		t.Logf("%s: %d calls, %d observe", want[i], calls[i], observes[i])
		if calls[i]-observes[i] > 5 || observes[i] > 1 {
			t.Errorf("%s took %d calls with %d observe: want at most 5 and one observe", want[i], calls[i], observes[i])
		}
	}
	if bad := f.noEffectResults(); len(bad) > 0 {
		t.Fatalf("%d results said no visible effect; the first:\n%s", len(bad), bad[0])
	}
	t.Logf("%d executor calls in all (the minimum is 16), %v", f.total(), f.calls)
}

// skillsFlow adds Go, Rust and SQL on the skills fixture.
func skillsFlow(tb testing.TB, s *flowSite) *flowTally {
	h := newHarness(tb, nil)
	f := &flowTally{}
	m := &skillsModel{skills: []string{"Go", "Rust", "SQL"}}
	runFlow(tb, h, "Add the skills Go, Rust and SQL to my profile", s.URL+"/skills.html", f, m.next)
	return f
}

// skillsModel is a careful model adding skills: for each, open the dialog,
// type the skill, pick the suggestion that is exactly it, save, and
// decline the assessment. It needs a ref it was shown for every action;
// when the one it needs is not in its prompt, or the action failed, it
// looks with observe, once.
type skillsModel struct {
	skills []string
	skill  int  // the skill being added
	done   int  // its steps done
	looked bool // the last call was an observe for the step at hand
}

// skillSteps are one skill's steps: the control each acts on.
var skillSteps = []struct {
	role, name string // name "" is the skill itself, matched exactly
}{{"button", "Add skill"}, {"combobox", "Skill"}, {"option", ""}, {"button", "Save"}, {"button", "No thanks"}}

func (m *skillsModel) next(r *modeltest.Request) (int, modeltest.Reply) {
	text, last := r.Text(), r.LastText()
	if strings.HasPrefix(last, "error") && !m.looked {
		m.done-- // the last action did not run: look, then try it again
	}
	if m.done == len(skillSteps) {
		m.skill, m.done = m.skill+1, 0
	}
	if m.skill == len(m.skills) {
		return m.skill, apptest.Done("added "+strings.Join(m.skills, ", "), true)
	}
	skill, st := m.skills[m.skill], skillSteps[m.done]
	e := modeltest.Ref(text, st.role, st.name)
	name := st.name
	if name == "" {
		name = skill
		e = modeltest.ExactRef(text, st.role, skill)
	}
	if e == "" || strings.HasPrefix(last, "error") && !m.looked {
		if m.looked {
			return m.skill, apptest.Done(fmt.Sprintf("I cannot find the %s %q on the page", st.role, name), false)
		}
		m.looked = true
		return m.skill, apptest.Call("observe", "query", name)
	}
	m.looked = false
	m.done++
	if st.role == "combobox" {
		return m.skill, apptest.Call("type", "ref", e, "text", skill)
	}
	return m.skill, apptest.Call("click", "ref", e)
}

// TestFlowLongRow: "Item 4321" in a row of 5,000 buttons is
// selected and the form submitted in at most four calls.
func TestFlowLongRow(t *testing.T) {
	s := newFlowSite(t)
	f := longRowFlow(t, s)
	s.state(func(s *flowSite) {
		if !slices.Equal(s.picks, []string{"Item 4321"}) {
			t.Fatalf("the form posted %q, want Item 4321 once", s.picks)
		}
	})
	if n := f.total(); n > 4 {
		t.Fatalf("%d executor calls, want at most 4: %v", n, f.calls)
	}
	// The first view was cut, and its hint names the tool that finds more.
	if first := f.first; !strings.Contains(first, "(more exist: call observe with query or roles)") {
		t.Fatalf("the first observation does not point to observe:\n%s", first)
	}
	t.Logf("%d executor calls (the minimum is 4): %v", f.total(), f.calls)
}

// longRowFlow picks Item 4321 and submits: the item is not among the
// controls first shown, so a careful model searches for it.
func longRowFlow(tb testing.TB, s *flowSite) *flowTally {
	h := newHarness(tb, nil)
	f := &flowTally{}
	looked, clicked := "", map[string]bool{}
	runFlow(tb, h, "Select Item 4321 and submit the form", s.URL+"/longrow.html", f, func(r *modeltest.Request) (int, modeltest.Reply) {
		text := r.Text()
		for _, name := range []string{"Item 4321", "Submit"} {
			if clicked[name] {
				continue
			}
			e := modeltest.ExactRef(text, "button", name)
			if e == "" {
				if looked == name {
					return 0, apptest.Done("I cannot find "+name, false)
				}
				looked = name
				return 0, apptest.Call("observe", "query", name)
			}
			clicked[name] = true
			return 0, apptest.Call("click", "ref", e)
		}
		if !strings.Contains(r.LastText(), "You picked Item 4321") {
			return 0, apptest.Done("the form did not confirm the pick", false)
		}
		return 0, apptest.Done("picked Item 4321", true)
	})
	return f
}

// TestFlowCheckout: "Place order" shows "Processing…" for
// 800 ms before it posts; the order exists before the executor's next
// model call, and the click's result shows the confirmation.
func TestFlowCheckout(t *testing.T) {
	s := newFlowSite(t)
	f, before := checkoutFlow(t, s)
	if len(before) != 1 {
		t.Fatalf("when the executor's next model call came, the site had orders %q, want one", before)
	}
	want := "Order confirmed: #" + before[0]
	if len(f.results) == 0 || !strings.Contains(f.results[0], want) {
		t.Fatalf("the click's result the model read lacks %q:\n%v", want, f.results)
	}
	if f.total() > 2 {
		t.Fatalf("%d executor calls, want 2: %v", f.total(), f.calls)
	}
}

// checkoutFlow places the order, allowed by the person, and returns the
// orders the site had when the model was called after the click.
func checkoutFlow(tb testing.TB, s *flowSite) (*flowTally, []string) {
	var c confirmations
	h := newHarness(tb, c.answering(agents.AllowOnce))
	f := &flowTally{}
	var before []string
	runFlow(tb, h, "Place the order in the cart", s.URL+"/checkout.html", f, func(r *modeltest.Request) (int, modeltest.Reply) {
		if r.ToolResults() == 0 {
			return 0, apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Place order"))
		}
		s.state(func(s *flowSite) { before = append([]string(nil), s.orders...) })
		if m := orderRE.FindStringSubmatch(r.LastText()); m != nil {
			return 0, apptest.Done("order "+m[1]+" placed", true)
		}
		return 0, apptest.Done("the page did not confirm the order", false)
	})
	if n := len(c.list()); n != 1 {
		tb.Fatalf("the person was asked %d times, want once", n)
	}
	return f, before
}

var orderRE = regexp.MustCompile(`Order confirmed: #(\w+)`)

// TestFlowStepper: "+" on a quantity stepper, which only
// sets the input's value, is reported as an effect with the new value.
func TestFlowStepper(t *testing.T) {
	s := newFlowSite(t)
	f := stepperFlow(t, s)
	if len(f.results) == 0 {
		t.Fatal("the model read no result")
	}
	got := f.results[0]
	if strings.Contains(got, agents.NoEffect) || !strings.Contains(got, `"Quantity" = "2"`) {
		t.Fatalf("the click's result:\n%s", got)
	}
}

// stepperFlow raises the quantity to two, once.
func stepperFlow(tb testing.TB, s *flowSite) *flowTally {
	h := newHarness(tb, nil)
	f := &flowTally{}
	runFlow(tb, h, "Set the quantity to 2", s.URL+"/stepper.html", f, func(r *modeltest.Request) (int, modeltest.Reply) {
		if r.ToolResults() == 0 {
			return 0, apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Increase quantity"))
		}
		if strings.Contains(r.LastText(), `"Quantity" = "2"`) {
			return 0, apptest.Done("the quantity is 2", true)
		}
		return 0, apptest.Done("the quantity did not change", false)
	})
	return f
}

// TestPlannerSeesAttachedTabs: with two tabs attached, the
// planner's first prompt names each by id, title and URL, so it can tell
// the profile from the catalog.
func TestPlannerSeesAttachedTabs(t *testing.T) {
	s := newFlowSite(t)
	h := newHarness(t, nil)
	ctx := apptest.Context(t)
	var ids []string
	pages := map[string]string{"/skills.html": "Ada Lovelace | ProNet", "/longrow.html": "Pick an item | Catalog"}
	for _, page := range []string{"/skills.html", "/longrow.html"} {
		tab, err := testBrowser.Open(ctx, s.URL+page)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tab.Close(context.WithoutCancel(ctx)) })
		// The person attaches a tab they see: its page has loaded.
		testkit.WaitFor(t, 10*time.Second, page+"'s title", func() bool { return tab.Info().Title == pages[page] })
		ids = append(ids, tab.ID())
	}
	h.srv.Script("planner", modeltest.Step{Reply: apptest.Done("looked", true)})
	h.execute(t, "add my skills", ids...)
	first := h.srv.Requests("planner")[0].Text()
	for i, want := range []string{
		fmt.Sprintf(`- tab %s: title "Ada Lovelace | ProNet", URL %s/skills.html`, ids[0], s.URL),
		fmt.Sprintf(`- tab %s: title "Pick an item | Catalog", URL %s/longrow.html`, ids[1], s.URL),
	} {
		if !strings.Contains(first, want) {
			t.Fatalf("the planner's first prompt lacks tab %d as %q:\n%s", i+1, want, first)
		}
	}
}
