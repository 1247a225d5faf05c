package browser

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// orders is the checkout fixture's server side: the orders POSTed, by the
// id each test gives its page.
var orders orderBook

type orderBook struct {
	mu sync.Mutex
	n  map[string]int
}

func (o *orderBook) add(id string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.n == nil {
		o.n = map[string]int{}
	}
	o.n[id]++
	return o.n[id]
}

func (o *orderBook) count(id string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n[id]
}

// states is what fixture pages POST to /api/state, by the id each test
// gives its page: the server's side a test judges by.
var states stateBook

type stateBook struct {
	mu   sync.Mutex
	m    map[string][]string
	runs int
}

// pageID is an id for a test's page, its own in this run of the test:
// the book outlives a run of -count=N, and a second run would find the
// first's posts under the test's bare name.
func (s *stateBook) pageID(t *testing.T) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs++
	return fmt.Sprintf("%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), s.runs)
}

func (s *stateBook) add(id, v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]string{}
	}
	s.m[id] = append(s.m[id], v)
}

// get returns what the page with id posted, in order.
func (s *stateBook) get(id string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.m[id]...)
}

// delay answers after d, as a slow server does, or when the client leaves.
func delay(r *http.Request, d time.Duration) {
	select {
	case <-time.After(d):
	case <-r.Context().Done():
	}
}

// apiFixtures adds the fixture pages' server endpoints and generated pages.
func apiFixtures(mux *http.ServeMux) {
	mux.HandleFunc("/api/suggest", func(w http.ResponseWriter, r *http.Request) {
		delay(r, 300*time.Millisecond)
		q := strings.ToLower(r.URL.Query().Get("q"))
		var out []string
		// Decoys first, as real typeaheads rank sponsored entries.
		for _, s := range []string{"Go (board game)", "Golang jobs", "Go", "Gopher", "Python", "Rust"} {
			if q != "" && strings.Contains(strings.ToLower(s), q) {
				out = append(out, s)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	})
	mux.HandleFunc("/api/order", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		delay(r, 100*time.Millisecond)
		fmt.Fprint(w, orders.add(r.URL.Query().Get("id")))
	})
	mux.HandleFunc("/api/state", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			json.NewEncoder(w).Encode(states.get(r.URL.Query().Get("id")))
			return
		}
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		states.add(r.URL.Query().Get("id"), string(b))
		fmt.Fprint(w, "ok")
	})
	mux.HandleFunc("/api/apply", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		id := r.URL.Query().Get("id")
		states.add(id, "name="+r.FormValue("name"))
		for field, fs := range r.MultipartForm.File {
			for _, fh := range fs {
				f, err := fh.Open()
				if err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
				b, _ := io.ReadAll(f) // a short read is what the test sees
				f.Close()
				states.add(id, fmt.Sprintf("%s=%s:%s", field, fh.Filename, b))
			}
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Received</title><h1>Application received</h1>`)
	})
	mux.HandleFunc("/api/file", fileDownload)
	mux.HandleFunc("/api/private", func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if !ok || u != "ada" || p != "lovelace" {
			w.Header().Set("WWW-Authenticate", `Basic realm="Staff only"`)
			http.Error(w, "Unauthorized: staff only", http.StatusUnauthorized)
			return
		}
		states.add(r.URL.Query().Get("id"), "signed in "+u)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Staff</title><h1>Welcome ada</h1>`)
	})
	mux.HandleFunc("/api/slow", func(w http.ResponseWriter, r *http.Request) {
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		delay(r, time.Duration(ms)*time.Millisecond)
		fmt.Fprint(w, "ok")
	})
	mux.HandleFunc("/find.html", findPage)
}

// findPage has what Query and Within search: a narrow horizontal scroller
// of n buttons, product cards whose buttons are named only "Add to cart",
// a table row, a filled field, and a dialog with its own Save.
func findPage(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	if n <= 0 {
		n = 5000
	}
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Find</title><style>
#row{position:absolute;left:200px;top:60px;width:400px;overflow-x:auto;white-space:nowrap;border:1px solid #888}
#row button{width:90px}
.card{display:inline-block;border:1px solid #ccc;margin:4px;padding:4px;width:160px}
#far{margin-top:3000px}
</style></head><body><h1>Find</h1><p id="picked">none</p><div id="row">`)
	for i := range n {
		fmt.Fprintf(&sb, `<button onclick="document.getElementById('picked').textContent='picked %d'">Item %d</button>`, i, i)
	}
	sb.WriteString(`</div><div style="margin-top:120px">
<div class="card"><b>Blue mug</b> <span>$12</span> <button onclick="this.textContent='Added'">Add to cart</button></div>
<div class="card"><b>Red kettle</b> <span>$30</span> <button onclick="this.textContent='Added'">Add to cart</button></div>
</div>
<table><tr><td>Invoice 77</td><td><button onclick="document.getElementById('picked').textContent='download 77'">Download</button></td></tr>
<tr><td>Invoice 78</td><td><button onclick="document.getElementById('picked').textContent='download 78'">Download</button></td></tr></table>
<label>City <input id="city" value="Lisbon"></label>
<button id="page-save">Save</button>
<div id="far"><button onclick="this.textContent='Far clicked'">Far away</button> <input id="note" aria-label="Note"></div>
<div role="dialog" aria-label="Settings" style="position:fixed;right:10px;top:10px;background:#eee;padding:8px">
<p>Dialog prose</p><button>Save</button><button>Cancel</button></div>
</body></html>`)
	w.Header().Set("Content-Type", "text/html")
	w.Write([]byte(sb.String()))
}

// fileDownload answers a download: name is the file's suggested name; a
// size sends that many bytes, with its length unless nolength is set, in
// chunks with pauses between (so the browser reports progress); without
// one, a small invoice CSV.
func fileDownload(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", q.Get("name")))
	size, _ := strconv.Atoi(q.Get("size"))
	if size == 0 {
		w.Header().Set("Content-Type", "text/csv")
		fmt.Fprint(w, invoiceCSV)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if q.Get("nolength") == "" {
		w.Header().Set("Content-Length", strconv.Itoa(size))
	}
	chunk := make([]byte, 64<<10)
	for sent := 0; sent < size && r.Context().Err() == nil; sent += len(chunk) {
		n := min(len(chunk), size-sent)
		if _, err := w.Write(chunk[:n]); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		delay(r, 20*time.Millisecond)
	}
}

// invoiceCSV is the March invoice the downloads fixture serves.
const invoiceCSV = "item,amount\nHosting,120.00\nSupport,80.50\nTotal,200.50\n"
