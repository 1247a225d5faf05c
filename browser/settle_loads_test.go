package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// An action settles on what its page still awaits, besides the DOM: the
// body of a response, code its script loads, a store that answers later.

// TestSettleResponseBody: a response's headers can come long before its
// body. An action whose page reads the body it fetched (text(), json(),
// arrayBuffer(), at once or after a check of the response; a reader or a
// pipe over a stream) returns once the body has come, with what the page
// made of it; a body the page never reads is not waited for, and one that
// is still streaming at the settle's bound is reported as loading.
func TestSettleResponseBody(t *testing.T) {
	t.Parallel()
	tab, ctx := openSite(t, bodySite())
	for _, c := range []struct{ button, want string }{
		{"Then", "body of then"}, {"Await", "body of json"}, {"Checked", "body of checked"}, {"Unread", "answered"},
		{"Reader", "one two three (end)"}, {"Piped", "one two three (end)"},
	} {
		r, got := clickOut(t, ctx, tab, c.button)
		if got != c.want {
			t.Errorf("click %s returned before its effect: the page says %q, want %q; %s", c.button, got, c.want, r)
		}
		if r.Pending != 0 || !r.Settled {
			t.Errorf("click %s: %s, want it settled with nothing loading", c.button, r)
		}
	}
	// A stream longer than the settle's network bound: the answer says it
	// is still loading, and the words so far are on the page.
	r, got := clickOut(t, ctx, tab, "Endless")
	if r.Pending != 1 || !strings.HasPrefix(got, "more more") {
		t.Errorf("click Endless: %s, the page says %q; want it still loading, with words on the page", r, got)
	}
}

// bodySite serves TestSettleResponseBody's page and its slow responses:
// /body answers its headers at once and its body bodyLate later, /stream
// sends words a flush apart.
func bodySite() *http.ServeMux {
	const late = bodyLate
	mux := http.NewServeMux()
	mux.HandleFunc("/body", func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.RawQuery
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		wait := late
		if name == "unread" {
			// Longer than the settle's network bound: a wait for it would
			// end at the bound with the request still loading.
			wait = 10 * time.Second
		}
		select {
		case <-time.After(wait):
		case <-r.Context().Done():
			return
		}
		if name == "json" {
			fmt.Fprint(w, `{"msg":"body of json"}`)
			return
		}
		fmt.Fprint(w, "body of "+name)
	})
	// A streamed body: words a flush apart; "endless" goes on past the
	// settle's network bound.
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		words := strings.Fields("one two three")
		if r.URL.RawQuery == "endless" {
			words = strings.Fields(strings.Repeat("more ", 100))
		}
		for _, word := range words {
			fmt.Fprint(w, word+" ")
			w.(http.Flusher).Flush()
			select {
			case <-time.After(late / 3):
			case <-r.Context().Done():
				return
			}
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Bodies</title><p id="out">nothing yet</p>
<script>
async function reader(q) {
  const r = await fetch('/stream?' + q), rd = r.body.getReader(), dec = new TextDecoder();
  let t = '';
  for (;;) { const { done, value } = await rd.read(); if (done) break; t += dec.decode(value); out.textContent = t; }
  out.textContent = t + '(end)';
}
async function piped() {
  const r = await fetch('/stream?piped');
  let t = '';
  for await (const part of r.body.pipeThrough(new TextDecoderStream())) { t += part; out.textContent = t; }
  out.textContent = t + '(end)';
}
</script>
<button onclick="reader('reader')">Reader</button>
<button onclick="piped()">Piped</button>
<button onclick="reader('endless')">Endless</button>
<button onclick="fetch('/body?then').then((r) => r.text()).then((t) => { out.textContent = t; })">Then</button>
<button onclick="(async () => { const r = await fetch('/body?json'); const j = await r.json(); out.textContent = j.msg; })()">Await</button>
<button onclick="fetch('/body?checked').then((r) => { if (!r.ok) throw new Error(r.status); return r; }).then((r) => r.arrayBuffer()).then((b) => { out.textContent = new TextDecoder().decode(b); })">Checked</button>
<button onclick="fetch('/body?unread').then(() => { out.textContent = 'answered'; })">Unread</button>`)
	})
	return mux
}

// bodyLate is how long after its headers /body sends its body.
const bodyLate = 400 * time.Millisecond

// TestSettleLoadedCode: code a click's script loads — a module it
// import()s (which then fetches), a script it adds, a stylesheet that
// shows a control — is waited for, and what it does is in the answer and
// the look after it. An image the script preloads is reported as still
// loading, not as no effect.
func TestSettleLoadedCode(t *testing.T) {
	t.Parallel()
	const late = 300 * time.Millisecond
	slow := func(ctype, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(late):
			case <-r.Context().Done():
				return
			}
			w.Header().Set("Content-Type", ctype)
			fmt.Fprint(w, body)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/dialog.js", slow("text/javascript", `export function open() { document.getElementById('out').textContent = 'dialog open'; }`))
	mux.HandleFunc("/orders.js", slow("text/javascript", `const r = await fetch('/orders'); document.getElementById('out').textContent = await r.text();`))
	mux.HandleFunc("/orders", slow("text/plain", "3 orders"))
	mux.HandleFunc("/widget.js", slow("text/javascript", `document.getElementById('out').textContent = 'widget ran';`))
	mux.HandleFunc("/reveal.css", slow("text/css", `#later { display: inline-block; }`))
	mux.HandleFunc("/photo.gif", slow("image/gif", "GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Lazy</title><style>#later { display: none; }</style><p id="out">nothing yet</p>
<button onclick="import('/dialog.js').then((m) => m.open())">Dialog</button>
<button onclick="import('/orders.js')">Orders</button>
<button onclick="const s = document.createElement('script'); s.src = '/widget.js'; document.head.append(s)">Widget</button>
<button onclick="const l = document.createElement('link'); l.rel = 'stylesheet'; l.href = '/reveal.css'; document.head.append(l)">Style</button>
<button id="later">Revealed</button>
<button onclick="const i = new Image(); i.onload = () => { out.textContent = 'photo shown'; }; i.src = '/photo.gif'">Photo</button>`)
	})
	tab, ctx := openSite(t, mux)
	for _, c := range []struct{ button, want string }{{"Dialog", "dialog open"}, {"Orders", "3 orders"}, {"Widget", "widget ran"}} {
		r, got := clickOut(t, ctx, tab, c.button)
		if got != c.want || !r.Changed || r.Pending != 0 {
			t.Errorf("click %s: %s; the page says %q, want %q", c.button, r, got, c.want)
		}
	}
	r, _ := clickOut(t, ctx, tab, "Style")
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(o.Controls, func(c Control) bool { return c.Name == "Revealed" }) {
		t.Errorf("click Style: %s; the look after it has no Revealed button: %v", r, o.Controls)
	}
	r, _ = clickOut(t, ctx, tab, "Photo")
	if !r.Changed || r.Pending != 1 {
		t.Errorf("click Photo: %s, want it still loading (1 request), not without effect", r)
	}
}

// TestSettleStores: what a click waits for that is no request — a read of
// the page's IndexedDB database, of its Cache Storage, a blob's text, a
// digest — answers in a later task, and the render after it is in the
// click's answer.
func TestSettleStores(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Stores</title><p id="out">nothing yet</p><p id="st">opening</p>
<script>
const ready = new Promise((res) => {
  const rq = indexedDB.open('notes', 1);
  rq.onupgradeneeded = () => rq.result.createObjectStore('notes').put('the saved note', 'n1');
  rq.onsuccess = () => res(rq.result);
});
let db = null;
ready.then((d) => { db = d; document.getElementById('st').textContent = 'database ready'; });
function idb() {
  const rq = db.transaction('notes').objectStore('notes').get('n1');
  rq.onsuccess = () => { out.textContent = rq.result; };
}
function cursor() {
  const seen = [];
  const rq = db.transaction('notes').objectStore('notes').openCursor();
  rq.onsuccess = () => { const c = rq.result; if (c) { seen.push(c.value); c.continue(); } else out.textContent = 'listed ' + seen.length; };
}
async function cache() {
  const c = await caches.open('v1');
  await c.put('/greeting', new Response('cached hello'));
  const r = await c.match('/greeting');
  out.textContent = await r.text();
}
</script>
<button onclick="idb()">Note</button>
<button onclick="cursor()">List</button>
<button onclick="cache()">Cache</button>
<button onclick="new Blob(['from a blob']).text().then((t) => { out.textContent = t; })">Blob</button>
<button onclick="crypto.subtle.digest('SHA-256', new TextEncoder().encode('x')).then((d) => { out.textContent = 'digest ' + d.byteLength; })">Digest</button>
<button onclick="const fr = new FileReader(); fr.onload = () => { out.textContent = fr.result; }; fr.readAsText(new Blob(['read by a reader']))">Reader</button>`)
	})
	tab, ctx := openSite(t, mux)
	if w, err := tab.Wait(ctx, WaitFor{Text: "database ready"}, 5*time.Second); err != nil || !w.Met {
		t.Fatalf("the database never opened: %v, %v", w, err)
	}
	for _, c := range []struct{ button, want string }{
		{"Note", "the saved note"}, {"List", "listed 1"}, {"Cache", "cached hello"},
		{"Blob", "from a blob"}, {"Digest", "digest 32"}, {"Reader", "read by a reader"},
	} {
		if r, got := clickOut(t, ctx, tab, c.button); got != c.want || !r.Changed {
			t.Errorf("click %s returned before its effect: %s; the page says %q, want %q", c.button, r, got, c.want)
		}
	}
}

// clickOut clicks the button named name and returns the result and what
// the page's #out says right after it.
func clickOut(t *testing.T, ctx context.Context, tab *Tab, name string) (*Result, string) {
	t.Helper()
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tab.Click(ctx, find(t, o, "button", name).Ref)
	if err != nil {
		t.Fatalf("click %s: %v", name, err)
	}
	return r, eval[string](t, tab, `document.getElementById('out').textContent`)
}

// openSite serves mux for the test and opens its root page.
func openSite(t *testing.T, mux *http.ServeMux) (*Tab, context.Context) {
	t.Helper()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return openURL(t, srv.URL+"/")
}
