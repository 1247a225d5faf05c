package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/internal/testkit"
)

// frameSite serves a top page on 127.0.0.1 holding, at (50, 80), an iframe
// of another site (localhost, the same server): a select and a link. The
// frame's page reports its select's changes to the server.
type frameSite struct {
	*httptest.Server
	mu  sync.Mutex
	got []string
}

func newFrameSite(t *testing.T) *frameSite {
	s := &frameSite{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /top", func(w http.ResponseWriter, r *http.Request) {
		inner := strings.Replace(s.URL, "127.0.0.1", "localhost", 1) + "/inner"
		fmt.Fprintf(w, `<!doctype html><body style="margin:0"><iframe src="%s" style="position:absolute;left:50px;top:80px;width:400px;height:300px;border:0"></iframe>`, inner)
	})
	mux.HandleFunc("GET /inner", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><body style="margin:0;font:20px sans-serif">
<select id=s style="position:absolute;left:10px;top:10px;width:200px;height:30px"><option>one<option>two<option>three</select>
<a href="/elsewhere" style="position:absolute;left:10px;top:100px">a frame's link</a>
<script>s.onchange=()=>fetch('/got?v='+s.value)</script>`)
	})
	mux.HandleFunc("GET /got", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.got = append(s.got, r.Host+" "+r.URL.Query().Get("v"))
		s.mu.Unlock()
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *frameSite) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// A select and a link in a cross-site iframe (its own process) of a
// served tab: the select's list comes to the view at its place in the top
// page, the choice reaches the frame's page, and a right-click on the
// link asks for the menu with the link, where it was clicked. The frame
// arrives after serving began, as when the person opens a page.
func TestPersonCrossSiteFrame(t *testing.T) {
	t.Parallel()
	s := newFrameSite(t)
	ctx := tctx(t)
	tab, err := testBrowser.Open(ctx, "about:blank")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tab.Close(ctx) })
	ch, err := tab.ServePerson(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Navigate(ctx, s.URL+"/top"); err != nil {
		t.Fatal(err)
	}
	p := openFramePicker(t, tab, ch)
	if p.Type != PickerSelect || len(p.Options) != 3 || p.Rect.X != 60 || p.Rect.Y != 90 || p.Rect.W != 200 {
		t.Fatalf("picker %+v, want the select's 3 options at (60, 90) in the top page", p)
	}
	if err := tab.Choose(ctx, p.ID, p.Options[2].Value); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 10*time.Second, "the frame's page seeing the choice", func() bool { return len(s.received()) > 0 })
	if got := s.received()[0]; !strings.HasPrefix(got, "localhost:") || !strings.HasSuffix(got, " three") {
		t.Fatalf("the frame's page reported %q", got)
	}

	click(t, tab, 50+20, 80+110, "right")
	m := nextEvent(t, ch, PersonMenu).Menu
	if !strings.HasPrefix(m.Link, "http://localhost:") || !strings.HasSuffix(m.Link, "/elsewhere") || m.X != 70 || m.Y != 190 {
		t.Fatalf("menu %+v, want the frame's link at (70, 190)", m)
	}
}

// A tab showing the cross-site frame before it is served: the frame's
// select list comes to the view all the same.
func TestPersonCrossSiteFrameServedLate(t *testing.T) {
	t.Parallel()
	s := newFrameSite(t)
	ctx := tctx(t)
	tab, err := testBrowser.Open(ctx, s.URL+"/top")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tab.Close(ctx) })
	ch, err := tab.ServePerson(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p := openFramePicker(t, tab, ch); p.Rect.X != 60 || p.Rect.Y != 90 {
		t.Fatalf("picker %+v, want it at (60, 90) in the top page", p)
	}
}

// openFramePicker clicks the frame's select until its list comes: the
// frame may still be loading.
func openFramePicker(t *testing.T, tab *Tab, ch <-chan PersonEvent) *Picker {
	t.Helper()
	var p *Picker
	testkit.WaitFor(t, 10*time.Second, "the frame's select list", func() bool {
		click(t, tab, 50+10+100, 80+10+15, "left")
		timeout := time.NewTimer(time.Second)
		defer timeout.Stop()
		for p == nil {
			select {
			case ev := <-ch:
				if ev.Kind == PersonPicker {
					p = ev.Picker
				}
			case <-timeout.C:
				return false
			}
		}
		return true
	})
	return p
}
