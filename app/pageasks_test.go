package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"vroom/browser"
	"vroom/internal/testkit"
)

// A confirm and then a prompt on the person's tab reach the UI as asks of
// that tab; answered through the bindings, the page gets the answers, and
// the asks go.
func TestPageAsksAnswered(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	got := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			got <- string(b)
			return
		}
		io.WriteString(w, `<!doctype html><title>asks</title><script>
setTimeout(async () => {
  await fetch('/', {method: 'POST', body: 'confirm=' + confirm('Delete it?')});
  await fetch('/', {method: 'POST', body: 'prompt=' + prompt('Name?', 'Ada')});
}, 50);</script>`)
	}))
	t.Cleanup(srv.Close)
	info, err := d.NewTab(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, info.ID)
	asked := func(kind browser.DialogKind) func(any) bool {
		return func(x any) bool {
			for _, a := range x.(PageAsksView).Asks {
				if a.Tab == info.ID && a.Kind == AskDialog && a.Dialog.Kind == kind {
					return true
				}
			}
			return false
		}
	}
	_, i := d.ui.wait(t, 10*time.Second, string(EventPageAsks), 0, asked(browser.DialogConfirm))
	if err := d.AnswerDialog(info.ID, false, ""); err != nil {
		t.Fatal(err)
	}
	if g := <-got; g != "confirm=false" {
		t.Fatalf("the page got %q, want confirm=false", g)
	}
	d.ui.wait(t, 10*time.Second, string(EventPageAsks), i, asked(browser.DialogPrompt))
	if v := d.PageAsks(); len(v.Asks) != 1 || v.Asks[0].Dialog.Default != "Ada" {
		t.Fatalf("asks %+v, want the prompt with its default", v.Asks)
	}
	if err := d.AnswerDialog(info.ID, true, "Grace"); err != nil {
		t.Fatal(err)
	}
	if g := <-got; g != "prompt=Grace" {
		t.Fatalf("the page got %q, want prompt=Grace", g)
	}
	testkit.WaitFor(t, 10*time.Second, "no ask left", func() bool { return !asked(browser.DialogPrompt)(d.PageAsks()) })
	if err := d.AnswerDialog(info.ID, true, ""); err == nil {
		t.Error("answering a dialog that is not open succeeded")
	}
}
