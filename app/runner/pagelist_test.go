package runner

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// The custom list flow: a sign-up form whose country is picked from a
// list the page draws itself, 41 options in its own scroll box with
// about eight showing, opened by a trigger. Judged by what the page
// posted.

// listSite serves the sign-up page and records the countries it posted.
type listSite struct {
	*httptest.Server

	mu     sync.Mutex
	picked []string
}

func newListSite(tb testing.TB) *listSite {
	s := &listSite{}
	mux := http.NewServeMux()
	for path, trigger := range map[string]string{
		// A select drawn by a component library: the trigger says it
		// is a combobox.
		"/signup": `role="combobox"`,
		// The same list behind a plain button that says it opens one.
		"/signup-button": ``,
	} {
		page := fmt.Sprintf(signupPage, trigger)
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, page)
		})
	}
	mux.HandleFunc("POST /country", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.picked = append(s.picked, r.FormValue("country"))
		s.mu.Unlock()
	})
	s.Server = httptest.NewServer(mux)
	tb.Cleanup(s.Close)
	return s
}

func (s *listSite) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.picked...)
}

// signupPage has the trigger's extra attributes as its one verb.
const signupPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign up</title>
<style>
.picker{position:relative;width:260px}.picker button{width:100%%;text-align:left}
#countries{position:absolute;top:30px;left:0;right:0;max-height:240px;overflow:auto;margin:0;padding:0;list-style:none;border:1px solid #888;background:#fff;z-index:2}
#countries[hidden]{display:none}#countries li{padding:6px 8px;cursor:pointer}#countries li:hover{background:#def}
</style></head><body>
<h1>Create your account</h1>
<p><label>Email <input name="email" type="email"></label></p>
<p id="country-label">Country</p>
<div class="picker">
<button type="button" id="country" %s aria-haspopup="listbox" aria-expanded="false" aria-controls="countries" aria-labelledby="country-label country">Choose a country</button>
<ul id="countries" role="listbox" aria-labelledby="country-label" hidden></ul>
</div>
<p><button type="button">Create account</button></p>
<script>
const names = ('Afghanistan Albania Algeria Andorra Angola Argentina Armenia Australia Austria Azerbaijan Bahamas Bahrain ' +
  'Bangladesh Barbados Belarus Belgium Belize Benin Bhutan Bolivia Botswana Brazil Brunei Bulgaria Burundi Cambodia ' +
  'Cameroon Canada Chad Chile China Colombia Comoros Congo Croatia Cuba Cyprus Czechia Denmark Djibouti Dominica').split(' ');
const list = document.getElementById('countries'), trigger = document.getElementById('country');
for (const n of names) {
  const li = document.createElement('li');
  li.setAttribute('role', 'option');
  li.textContent = n;
  li.addEventListener('click', () => {
    trigger.textContent = n;
    list.hidden = true;
    trigger.setAttribute('aria-expanded', 'false');
    fetch('/country', {method: 'POST', body: new URLSearchParams({country: n})});
  });
  list.appendChild(li);
}
trigger.addEventListener('click', () => {
  list.hidden = !list.hidden;
  trigger.setAttribute('aria-expanded', String(!list.hidden));
});
</script></body></html>`

// listFlow picks Canada on page of a fresh list site, as a careful model
// does: select on a combobox; on a button, click it, then click the
// option if the result shows it, else look for it with a query first.
func listFlow(tb testing.TB, page string) (*flowTally, []string) {
	s := newListSite(tb)
	h := newHarness(tb, nil)
	f := &flowTally{}
	next := func(r *modeltest.Request) (int, modeltest.Reply) {
		last := r.LastText()
		switch {
		case r.ToolResults() == 0 && modeltest.Ref(r.Text(), "combobox", "Country") != "":
			return 0, apptest.Call("select", "ref", modeltest.Ref(r.Text(), "combobox", "Country"), "option", "Canada")
		case r.ToolResults() == 0:
			return 0, apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Country"))
		case strings.HasPrefix(last, "select") || strings.Contains(apptest.Calls(r), `"ref":"`+modeltest.ExactRef(r.Text(), "option", "Canada")+`"`):
			return 0, apptest.Done("picked Canada: "+last, !strings.HasPrefix(last, "error"))
		case modeltest.ExactRef(last, "option", "Canada") != "":
			return 0, apptest.Call("click", "ref", modeltest.ExactRef(last, "option", "Canada"))
		case strings.Contains(apptest.Calls(r), "observe"):
			return 0, apptest.Done("Canada is not in the list: "+last, false)
		}
		return 0, apptest.Call("observe", "query", "Canada")
	}
	runFlow(tb, h, "Sign up with country Canada", s.URL+page, f, next)
	return f, s.got()
}

// TestFlowCustomList: Canada, below the fold of a custom list's own
// scroll box, is picked in at most three calls, whether the trigger is a
// combobox or a button that opens the list.
func TestFlowCustomList(t *testing.T) {
	t.Parallel()
	for _, page := range []string{"/signup", "/signup-button"} {
		t.Run(strings.TrimPrefix(page, "/"), func(t *testing.T) {
			t.Parallel()
			f, picked := listFlow(t, page)
			if !slices.Equal(picked, []string{"Canada"}) {
				t.Fatalf("the page posted %v, want [Canada]; results:\n%s", picked, strings.Join(f.results, "\n---\n"))
			}
			if f.total() > 3 {
				t.Fatalf("%d calls, want at most 3: %v\n%s", f.total(), f.calls, strings.Join(f.results, "\n---\n"))
			}
		})
	}
}
