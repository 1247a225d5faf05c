package browser

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSettleHearsTheAskedNavigation: a click whose page asks for a
// navigation to a slow page is answered with that navigation, however the
// page asks: a link, a script at once or on a timer, a form.
func TestSettleHearsTheAskedNavigation(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select { // a slow server: the navigation is on its way while the page settles
		case <-time.After(300 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		fmt.Fprintf(w, `<!doctype html><title>Slow</title><p>Arrived by %s.</p>`, r.URL.RawQuery)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Ways</title>
<a href="/slow?link">Link</a>
<button onclick="location.href = '/slow?href'">Href</button>
<button onclick="location.assign('/slow?assign')">Assign</button>
<button onclick="setTimeout(() => location.replace('/slow?later'), 30)">Later</button>
<form action="/slow"><input type="hidden" name="form"><button>Submit</button></form>`)
	})
	tab, ctx := openSite(t, mux)
	home := tab.Info().URL
	for _, c := range []struct{ role, name, query string }{
		{"link", "Link", "link"}, {"button", "Href", "href"}, {"button", "Assign", "assign"},
		{"button", "Later", "later"}, {"button", "Submit", "form="},
	} {
		if _, err := tab.Navigate(ctx, home); err != nil {
			t.Fatal(err)
		}
		o, err := tab.Observe(ctx, ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := tab.Click(ctx, find(t, o, c.role, c.name).Ref)
		if err != nil {
			t.Fatalf("click %s: %v", c.name, err)
		}
		if !r.Navigated || !strings.HasSuffix(r.URL, "/slow?"+c.query) {
			t.Errorf("click %s: %s, want it to have navigated to /slow?%s", c.name, r, c.query)
		}
	}
}
