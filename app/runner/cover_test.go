package runner

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/browser"
	"vroom/internal/modeltest"
)

// popupSite serves flows/popup.html (apptest.Pages): a parcel tracker whose
// newsletter popup (a fixed backdrop, no role) shows 300 ms after load,
// once the site has answered /api/offer.
type popupSite struct {
	*httptest.Server
	offer chan struct{} // closed: /api/offer answers
	shown chan struct{} // closed when the page says the popup shows

	mu     sync.Mutex
	tracks []string
}

func newPopupSite(t testing.TB) *popupSite {
	s := &popupSite{offer: make(chan struct{}), shown: make(chan struct{})}
	var once sync.Once
	mux := http.NewServeMux()
	mux.Handle("/", apptest.PageServer("flows"))
	mux.HandleFunc("GET /api/offer", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-s.offer:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, "10%")
	})
	mux.HandleFunc("POST /api/popup-shown", func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(s.shown) })
	})
	mux.HandleFunc("GET /track", func(w http.ResponseWriter, r *http.Request) {
		code := r.FormValue("code")
		s.mu.Lock()
		s.tracks = append(s.tracks, code)
		s.mu.Unlock()
		fmt.Fprintf(w, "<!doctype html><title>Parcel %s</title><p>Parcel %s: out for delivery.</p>", code, code)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// popupModel is a careful model tracking a parcel: it types into the
// field it was shown; when that is refused it closes what covers the field
// with a control the refusal itself showed (closeWith: "No thanks"), then
// types again. It acts only on refs it has seen.
func popupModel(s *popupSite, closeWith string) func(r *modeltest.Request) (int, modeltest.Reply) {
	var once sync.Once
	return func(r *modeltest.Request) (int, modeltest.Reply) {
		// The model thinks while the popup arrives: its first answer
		// comes once the page has shown it, as a slower model's would.
		once.Do(func() {
			close(s.offer)
			select {
			case <-s.shown:
			case <-time.After(10 * time.Second):
			}
		})
		text, last := r.Text(), r.LastText()
		switch {
		case strings.Contains(last, "out for delivery"):
			return 0, apptest.Done("parcel AB123 is out for delivery", true)
		case strings.HasPrefix(last, "error"):
			e := modeltest.Ref(last, "button", closeWith)
			if e == "" {
				return 0, apptest.Done("something covers the field and I see no way to close it", false)
			}
			return 0, apptest.Call("click", "ref", e)
		}
		e := modeltest.Ref(text, "textbox", "Tracking number")
		if e == "" {
			return 0, apptest.Done("no tracking number field", false)
		}
		return 0, apptest.Call("type", "ref", e, "text", "AB123", "submit", true)
	}
}

// TestPopupOverField: a newsletter popup covers the field the
// model types into; the refusal carries the popup's controls with refs,
// fenced as page data, so the model closes it and types again — at most
// four executor calls (type, close, type, done), no observe.
func TestPopupOverField(t *testing.T) {
	s := newPopupSite(t)
	f := &flowTally{}
	trackOnceIn4(t, s, "/popup.html", "No thanks", f)
	if len(f.results) == 0 || !strings.HasPrefix(f.results[0], "error") {
		t.Fatalf("the first type was not refused (the popup was not over the field):\n%v", f.results)
	}
	refused := f.results[0]
	for _, want := range []string{"covered at its click point by div.nl-backdrop", "what covers it now", "<page_data", `button "No thanks"`, `button "×"`, `button "Get my code"`} {
		if !strings.Contains(refused, want) {
			t.Fatalf("the refusal lacks %q:\n%s", want, refused)
		}
	}
	if strings.Contains(refused, "Tracking number") || len(refused) > 1500 {
		t.Fatalf("the refusal is not just the popup (%d bytes):\n%s", len(refused), refused)
	}
	t.Logf("%d executor calls: %v\nthe refusal:\n%s", f.total(), f.calls, refused)
}

// TestSkillsDialogBlocksPage: on the skills fixture, once "Add
// skill" opens its dialog (a role=dialog on a fixed backdrop, no
// aria-modal), the view offers the dialog's controls and not the 180 of
// the feed behind it, which it counts as blocked; the typeahead's
// suggestions, drawn over the dialog from outside it, stay offered.
func TestSkillsDialogBlocksPage(t *testing.T) {
	needBrowser(t)
	s := newFlowSite(t)
	ctx := apptest.Context(t)
	tab, err := testBrowser.Open(ctx, s.URL+"/skills.html")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tab.Close(context.WithoutCancel(ctx)) })
	o, err := tab.Observe(ctx, browser.ObserveOptions{Query: "Add skill"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Click(ctx, modeltest.Ref(o.Compact(), "button", "Add skill")); err != nil {
		t.Fatal(err)
	}
	o, err = tab.Observe(ctx, browser.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	view := o.Compact()
	if o.Blocked < 180 || !strings.Contains(view, "the page behind the dialog is blocked") || strings.Contains(view, "Like post") {
		t.Fatalf("the view with the dialog open:\n%s", view)
	}
	skill := modeltest.Ref(view, "combobox", "Skill")
	if skill == "" || modeltest.Ref(view, "button", "Cancel") == "" {
		t.Fatalf("the dialog's controls are not offered:\n%s", view)
	}
	r, err := tab.Type(ctx, skill, "Go", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Wait(ctx, browser.WaitFor{Query: "Golang Web Services"}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	o, err = tab.Observe(ctx, browser.ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if view = o.Compact(); modeltest.ExactRef(view, "option", "Go") == "" {
		t.Fatalf("the suggestions over the dialog are not offered (type: %v):\n%s", r, view)
	}
}

// TestFramedConsentOverField: the same flow when what covers the field is
// a consent manager's dialog in an iframe from another site (as most news
// and shop sites load theirs): the refusal carries the frame's controls,
// the careful model accepts from it — a click that closes its own frame —
// and types again, in at most four calls.
func TestFramedConsentOverField(t *testing.T) {
	s := newPopupSite(t)
	f := &flowTally{}
	trackOnceIn4(t, s, "/consent.html", "Accept all", f)
	if len(f.results) < 2 || !strings.Contains(f.results[0], `button "Accept all"`) || strings.Contains(f.results[1], "error") {
		t.Fatalf("the refusal and the accept:\n%v", f.results)
	}
}

// trackOnceIn4 runs the careful popup model on page of s, closing what
// covers the field with closeWith, and fails t unless the parcel was
// tracked once in at most four executor calls (tallied in f).
func trackOnceIn4(t *testing.T, s *popupSite, page, closeWith string, f *flowTally) {
	t.Helper()
	runFlow(t, newHarness(t, nil), "Track parcel AB123", s.URL+page, f, popupModel(s, closeWith))
	s.mu.Lock()
	tracks := append([]string(nil), s.tracks...)
	s.mu.Unlock()
	if len(tracks) != 1 || tracks[0] != "AB123" {
		t.Fatalf("the site tracked %q, want AB123 once; results:\n%v", tracks, f.results)
	}
	if n := f.total(); n > 4 {
		t.Fatalf("%d executor calls, want at most 4: %v", n, f.calls)
	}
}
