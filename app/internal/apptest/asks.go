package apptest

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// AsksSite is the fixture site of what a page asks of the browser rather
// than of the DOM (testdata/asks): a job board taking applications with a
// CV, an invoice portal, a project whose buttons ask confirm and prompt,
// a draft that asks "leave site?", an alert loop, a sign-in popup, a
// hover menu, two boards a card is dragged on and a canvas sheet. Each
// page reports what it did to /event, and the site records what it
// received, so a flow is judged by the server.
type AsksSite struct {
	*httptest.Server

	mu      sync.Mutex
	cvs     map[string][]byte // CV bytes, by applicant
	events  []string          // what the pages reported doing
	signins []string
}

// HugeDownload is the size /huge.bin announces, over any cap a holder
// sets (the default is 100 MB); it sends a little, then waits for the
// browser to give up.
const HugeDownload = 150 << 20

// NewAsksSite serves a fresh asks site until the test ends.
func NewAsksSite(t testing.TB) *AsksSite {
	s := &AsksSite{cvs: map[string][]byte{}}
	mux := http.NewServeMux()
	pages, err := fs.Sub(Pages(), "asks")
	if err != nil {
		panic(err) // the embedded testdata holds asks/
	}
	mux.HandleFunc("GET /{page}", func(w http.ResponseWriter, r *http.Request) {
		b, err := fs.ReadFile(pages, r.PathValue("page")+".html")
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b)
	})
	mux.HandleFunc("POST /apply", s.apply)
	s.serveFiles(mux)
	mux.HandleFunc("POST /event", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.events = append(s.events, r.FormValue("e"))
		s.mu.Unlock()
	})
	mux.HandleFunc("POST /idp", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.signins = append(s.signins, r.FormValue("email"))
		s.mu.Unlock()
		fmt.Fprintf(w, `<!doctype html><title>Done</title><script>window.opener.postMessage(%q, '*'); window.close();</script>`, r.FormValue("email"))
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// apply takes a multipart application: the applicant's name and the CV.
func (s *AsksSite) apply(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f, _, err := r.FormFile("cv")
	if err != nil {
		http.Error(w, "no CV attached", http.StatusBadRequest)
		return
	}
	b, _ := io.ReadAll(f) // a short read leaves a short CV, which the test sees
	s.mu.Lock()
	s.cvs[r.FormValue("name")] = b
	s.mu.Unlock()
	fmt.Fprintf(w, "<!doctype html><title>Applied</title><p>Application received from %s.</p>", r.FormValue("name"))
}

// serveFiles serves the invoice portal's attachments: the March invoice
// (CSV), the April one (PDF), a 4 MB archive and one announcing
// HugeDownload bytes.
func (s *AsksSite) serveFiles(mux *http.ServeMux) {
	attach := func(w http.ResponseWriter, name, mime string, size int) {
		w.Header().Set("Content-Type", mime)
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
		if size > 0 {
			w.Header().Set("Content-Length", fmt.Sprint(size))
		}
	}
	mux.HandleFunc("GET /invoice-2026-03.csv", func(w http.ResponseWriter, r *http.Request) {
		attach(w, "invoice-2026-03.csv", "text/csv", 0)
		io.WriteString(w, "item,amount\nHosting,80.00\nSupport,43.45\nTotal,123.45\n")
	})
	mux.HandleFunc("GET /invoice-2026-04.pdf", func(w http.ResponseWriter, r *http.Request) {
		attach(w, "invoice-2026-04.pdf", "application/pdf", 0)
		w.Write(OnePagePDF("Invoice April 2026", "Total due: 98.10 EUR"))
	})
	mux.HandleFunc("GET /big.bin", func(w http.ResponseWriter, r *http.Request) {
		attach(w, "big.bin", "application/octet-stream", 4<<20)
		w.Write(bytes.Repeat([]byte{1}, 4<<20))
	})
	mux.HandleFunc("GET /huge.bin", func(w http.ResponseWriter, r *http.Request) {
		attach(w, "huge.bin", "application/octet-stream", HugeDownload)
		w.Write(bytes.Repeat([]byte{1}, 64<<10))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		<-r.Context().Done() // the browser cancels once it sees the size
	})
}

// CV is the CV the site received from applicant.
func (s *AsksSite) CV(applicant string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cvs[applicant]
}

// Applicants are the names the site received applications from.
func (s *AsksSite) Applicants() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k := range s.cvs {
		out = append(out, k)
	}
	return out
}

// Events are what the pages reported doing, in order.
func (s *AsksSite) Events() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.events...)
}

// HasEvent reports whether a page reported e.
func (s *AsksSite) HasEvent(e string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.events {
		if x == e {
			return true
		}
	}
	return false
}

// Signins are the emails the provider's popup received.
func (s *AsksSite) Signins() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.signins...)
}
