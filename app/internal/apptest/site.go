package apptest

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Site is one fixture web site with its own state, served from Pages.
// Its fields are read and set under State.
type Site struct {
	*httptest.Server

	mu sync.Mutex
	// Quotes counts the quotes the quote desk gave.
	Quotes int
	// Notes are the notes each signed-in user posted (user → notes).
	Notes map[string][]string
	// Skills are the profile's skills; Cells the spreadsheet's.
	Skills []string
	Cells  map[string]string
	// Orders and Deletes count the orders placed and accounts deleted.
	Orders  int
	Deletes int
	// Hits counts every request for a page.
	Hits int
	// Attacker is substituted into injection.html.
	Attacker string
}

// NewSite serves a fresh fixture site until the test ends.
func NewSite(t testing.TB) *Site {
	s := &Site{Notes: map[string][]string{}, Cells: map[string]string{}}
	mux := http.NewServeMux()
	files := PageServer(".")
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.Hits++
		s.mu.Unlock()
		files.ServeHTTP(w, r)
	})
	mux.HandleFunc("/injection.html", s.injection)
	mux.HandleFunc("POST /api/quote", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.Quotes++
		q := 100 + s.Quotes
		s.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]int{"quote": q})
	})
	s.handleAccount(mux)
	s.handleSkillsAndCells(mux)
	mux.HandleFunc("POST /api/order", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.Orders++
		s.mu.Unlock()
	})
	mux.HandleFunc("POST /api/delete-account", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.Deletes++
		s.mu.Unlock()
		io.WriteString(w, "<p>Your account is gone.</p>")
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// injection serves injection.html with the attacker's address in it.
func (s *Site) injection(w http.ResponseWriter, r *http.Request) {
	b, err := fs.ReadFile(Pages(), "injection.html")
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	w.Write(bytes.ReplaceAll(b, []byte("{{ATTACKER}}"), []byte(s.Attacker)))
}

// handleAccount serves signing in (a session cookie) and a signed-in
// user's own data.
func (s *Site) handleAccount(mux *http.ServeMux) {
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
		s.Notes[u] = append(s.Notes[u], string(b))
		s.mu.Unlock()
	})
}

// ServeSkills serves a profile's skills at /api/skills, guarded by mu:
// GET lists them, POST adds its body (duplicates are kept: the agents
// must avoid them).
func ServeSkills(mux *http.ServeMux, mu *sync.Mutex, skills *[]string) {
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
func (s *Site) handleSkillsAndCells(mux *http.ServeMux) {
	ServeSkills(mux, &s.mu, &s.Skills)
	mux.HandleFunc("POST /api/cells", func(w http.ResponseWriter, r *http.Request) {
		var c struct{ Cell, Value string }
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		s.mu.Lock()
		s.Cells[c.Cell] = c.Value
		s.mu.Unlock()
	})
}

// State runs f with the site's state locked, to read or change it.
func (s *Site) State(f func(s *Site)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}
