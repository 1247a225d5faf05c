package main

import (
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
)

//go:embed testdata/*.html
var testdata embed.FS

// fixture is one page every engine is measured on.
type fixture struct {
	Name string // its row in the table
	Path string // its path on the fixture server
}

// fixtures are the pages whose observations are measured, in the table's
// order.
func fixtures() []fixture {
	return []fixture{
		{"login form", "/login.html"},
		{"profile, 200 buttons", "/profile.html"},
		{"list, 5,000 items", "/list.html"},
		{"article, 1,100 words", "/article.html"},
		{"select", "/select.html"},
		{"checkout, navigates after 1.5 s", "/checkout.html"},
		{"fetch, lands 600 ms after a click", "/fetch.html"},
	}
}

// fetchDelay is how long the fetch page's request takes to answer.
const fetchDelay = 600 * time.Millisecond

// chunkDelay is how long the lazy page's filter code takes to arrive.
const chunkDelay = 400 * time.Millisecond

// filtersChunk is the lazy page's filter dialog, a module of its own.
const filtersChunk = `export function openFilters(slot) {
  slot.innerHTML = '<div role="dialog" aria-label="Filters"><h2>Filters</h2>' +
    '<label>Price range <select><option>Any</option><option>Under €50</option></select></label>' +
    '<button type="button">Show results</button></div>';
}
`

// skill is one line of the profile's skills.
type skill struct {
	Name  string
	Count int
}

// profileSkills are the profile's 99 skills: with Connect and Message,
// their Endorse and Hide buttons make 200.
func profileSkills() []skill {
	areas := strings.Fields("Go Rust Python Kafka Postgres Kubernetes Terraform Spark Airflow dbt Flink Redis " +
		"GraphQL gRPC React Svelte TypeScript Linux Networking Security Observability Testing Hiring Mentoring " +
		"Writing Roadmaps Budgeting Negotiation Statistics Forecasting Pricing Compliance Support")
	kinds := []string{"", " design", " operations"}
	var out []skill
	for _, k := range kinds {
		for i, a := range areas {
			out = append(out, skill{Name: a + k, Count: 3 + (i*7+len(k))%40})
		}
	}
	return out
}

// serveFixtures starts the loopback server of the fixture pages.
func serveFixtures() (*httptest.Server, error) {
	tpl, err := template.ParseFS(testdata, "testdata/*.html")
	if err != nil {
		return nil, fmt.Errorf("parse the fixtures: %w", err)
	}
	items := make([]int, 5000)
	for i := range items {
		items[i] = i + 1
	}
	data := map[string]any{"profile.html": map[string]any{"Skills": profileSkills()}, "list.html": items}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{page}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("page")
		if tpl.Lookup(name) == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		d := data[name]
		if name == "welcome.html" {
			d = map[string]any{"User": r.URL.Query().Get("username")}
		}
		if err := tpl.ExecuteTemplate(w, name, d); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("GET /api/fares", slowly(fetchDelay, "application/json", `["TAP 07:40 — €89","Ryanair 11:15 — €54","easyJet 19:05 — €61"]`))
	mux.HandleFunc("GET /filters.js", slowly(chunkDelay, "text/javascript", filtersChunk))
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	return httptest.NewServer(mux), nil
}

// slowly answers body, of type ctype, d after the request, as a distant
// server would; a request given up meanwhile gets nothing.
func slowly(d time.Duration, ctype, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", ctype)
		fmt.Fprint(w, body)
	}
}
