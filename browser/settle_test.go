package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSettleTypeahead: typing returns only once the suggestions that a
// 150 ms debounce and a 300 ms server delay bring are in the DOM.
func TestSettleTypeahead(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/typeahead.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tab.Type(ctx, find(t, o, "combobox", "Skill").Ref, "go", false)
	if err != nil {
		t.Fatal(err)
	}
	n := eval[int](t, tab, `document.querySelectorAll('#suggest [role=option]').length`)
	t.Logf("type: %v, %d options, %s", r.Took, n, r)
	if n != 4 || !r.Changed || r.Pending != 0 {
		t.Errorf("the suggestions were not in the DOM when type returned: %d options; %s", n, r)
	}
	if r.Took < 450*time.Millisecond {
		t.Errorf("type returned in %v, before the debounce and the server could answer", r.Took)
	}
}

// TestSettleCheckout: a click whose page says "Processing…" and POSTs
// 800 ms later returns after the POST, with the confirmation in the DOM.
func TestSettleCheckout(t *testing.T) {
	t.Parallel()
	id := t.Name()
	before := orders.count(id) // the server's count outlives a run of -count=N
	tab := openTab(t, "/checkout.html?id="+id)
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tab.Click(ctx, find(t, o, "button", "Place order").Ref)
	if err != nil {
		t.Fatal(err)
	}
	status := eval[string](t, tab, `document.getElementById('status').textContent`)
	t.Logf("click: %v, status %q, %s", r.Took, status, r)
	if n := orders.count(id); n != before+1 {
		t.Errorf("%d new orders on the server when click returned, want 1", n-before)
	}
	if want := fmt.Sprintf("Order confirmed #%d", before+1); status != want {
		t.Errorf("no confirmation when click returned: %q, want %q", status, want)
	}
}

// TestSettleBusyPage: loops older than the action (an interval, a
// recursive timeout, a poll) cost an action nothing; an endless loop the
// action starts is cut by the timer cap; a request longer than the bound
// is reported as still loading.
func TestSettleBusyPage(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/timers.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	click := func(name string) *Result {
		t.Helper()
		r, err := tab.Click(ctx, find(t, o, "button", name).Ref)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// A loop that cost actions would slow every toggle; the fastest of
	// three stands for the page, so one toggle stalled by a loaded machine
	// (seen once at 1.1 s with four test binaries at once) does not.
	toggles := func() (fastest time.Duration, took []time.Duration) {
		for range 3 {
			r := click("Toggle")
			if r.Pending != 0 || !r.Changed {
				t.Errorf("toggle on a busy page: %s", r)
			}
			took = append(took, r.Took)
		}
		return slices.Min(took), took
	}
	fastest, took := toggles()
	spin := click("Spin")
	after, tookAfter := toggles()
	t.Logf("toggles %v; spin %v; toggles after spin %v", took, spin.Took, tookAfter)
	if fastest > 500*time.Millisecond {
		t.Errorf("loops older than the action held every toggle: %v", took)
	}
	if spin.Took > 1200*time.Millisecond {
		t.Errorf("an endless timer loop held the click %v", spin.Took)
	}
	if after > 500*time.Millisecond {
		t.Errorf("the spin loop still holds actions: %v", tookAfter)
	}
	slow := click("Load slowly")
	t.Logf("slow: %v %s", slow.Took, slow)
	if slow.Pending != 1 || !strings.Contains(slow.String(), "still loading (1 request)") {
		t.Errorf("a request past the bound: %s (pending %d)", slow, slow.Pending)
	}
	if slow.Took < 1500*time.Millisecond || slow.Took > 3500*time.Millisecond {
		t.Errorf("the network bound took %v", slow.Took)
	}
}

// TestSettleChainOutlivesAction: a timer loop an action started that
// outlives its bound (a 200 ms chain, cut at the network bound) belongs to
// that action: the next one, which waits 300 ms for a timer of its own
// while the chain ticks, does not wait on it.
func TestSettleChainOutlivesAction(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/timers.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	chain, err := tab.Click(ctx, find(t, o, "button", "Chain slowly").Ref)
	if err != nil {
		t.Fatal(err)
	}
	var took []time.Duration
	for range 2 {
		r, err := tab.Click(ctx, find(t, o, "button", "Toggle later").Ref)
		if err != nil || !r.Changed {
			t.Fatalf("toggle: %v, %v", r, err)
		}
		took = append(took, r.Took)
	}
	t.Logf("chain %v; toggles after it %v", chain.Took, took)
	// The chain's own click waited out the bound (about 2 s); a toggle
	// held by the chain would wait it out again.
	// Held by the chain, both would wait the bound out; the faster stands
	// for the page on a loaded machine.
	if chain.Took < 1500*time.Millisecond || slices.Min(took) > chain.Took*3/4 {
		t.Errorf("a toggle after the chain waited on it: chain %v, toggles %v", chain.Took, took)
	}
}

// TestVerdictStepper: a stepper that sets input.value (no attribute, no
// mutation) is an effect on the value; a button that does nothing is
// still "no visible effect".
func TestVerdictStepper(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/stepper.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tab.Click(ctx, find(t, o, "button", "Increase").Ref)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Changed || !strings.Contains(r.String(), "value") || strings.Contains(r.String(), "no visible effect") {
		t.Errorf("stepper +: %s", r)
	}
	d, err := tab.Changes(ctx, o.Version, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if q := find(t, &Observation{Controls: d.Changed}, "textbox", "Quantity"); q.Value != "2" {
		t.Errorf("the diff: %+v", d.Changed)
	}
	r, err = tab.Click(ctx, find(t, o, "button", "Does nothing").Ref)
	if err != nil {
		t.Fatal(err)
	}
	if r.Changed || !strings.Contains(r.String(), "no visible effect") {
		t.Errorf("a no-op click: %s", r)
	}
}

// TestSettleDeferredEffects: a click whose handler changes the page at
// once settles at once, and one whose handler leaves the change to a
// later task — a timer, a frame, a message, an idle or scheduled task —
// returns with that change in its result all the same.
func TestSettleDeferredEffects(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/deferred.html")
	ctx := tctx(t)
	for _, c := range []struct{ button, want string }{
		{"Sync", "sync"}, {"Microtask", "microtask"}, {"Timeout", "timeout"},
		{"Frame", "frame"}, {"Message", "message"}, {"Idle", "idle"},
		{"Task", "task"}, {"Broadcast", "broadcast"},
	} {
		o, err := tab.Observe(ctx, ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := tab.Click(ctx, find(t, o, "button", c.button).Ref)
		if err != nil {
			t.Fatalf("click %s: %v", c.button, err)
		}
		got := eval[string](t, tab, `document.getElementById('out').textContent`)
		if got != c.want || !r.Changed {
			t.Errorf("click %s returned before its effect: the page says %q, want %q; %s", c.button, got, c.want, r)
		}
	}
}

// TestSettleChoiceEffects: a native choice whose handler changes the page
// at once, in a microtask, after a request, or navigates returns with
// that effect, and the look that follows it shows the page after it.
func TestSettleChoiceEffects(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "fetched "+r.URL.RawQuery) })
	mux.HandleFunc("/next", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Next</title><p>Arrived.</p>`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Choices</title><p id="out">nothing yet</p>
<label>Sync <select onchange="out.textContent = 'sync ' + this.value"><option>a</option><option>b</option></select></label>
<label>Microtask <select onchange="Promise.resolve().then(() => { out.textContent = 'microtask ' + this.value; })"><option>a</option><option>b</option></select></label>
<label>Async <select onchange="(async (v) => { await (async () => 1)(); await (async () => { await null; return 2; })(); const r = await fetch('/api?async-' + v); out.textContent = await r.text(); })(this.value)"><option>a</option><option>b</option></select></label>
<label>Fetch <select onchange="fetch('/api?' + this.value).then((r) => r.text()).then((t) => { out.textContent = t; })"><option>a</option><option>b</option></select></label>
<label>Go <select onchange="location.href = '/next'"><option>a</option><option>b</option></select></label>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tab, ctx := openURL(t, srv.URL+"/")
	for _, c := range []struct{ name, want string }{{"Sync", "sync b"}, {"Microtask", "microtask b"}, {"Async", "fetched async-b"}, {"Fetch", "fetched b"}} {
		o, err := tab.Observe(ctx, ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := tab.Select(ctx, find(t, o, "combobox", c.name).Ref, "b")
		if err != nil {
			t.Fatalf("select %s: %v", c.name, err)
		}
		if got := eval[string](t, tab, `document.getElementById('out').textContent`); got != c.want || !r.Changed {
			t.Errorf("select %s returned before its effect: the page says %q, want %q; %s", c.name, got, c.want, r)
		}
		after, err := tab.Observe(ctx, ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(after.Text, c.want) {
			t.Errorf("the look after select %s: %q, want %q in it", c.name, after.Text, c.want)
		}
	}
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tab.Select(ctx, find(t, o, "combobox", "Go").Ref, "b")
	if err != nil || !r.Navigated || !strings.HasSuffix(r.URL, "/next") {
		t.Fatalf("a choice that navigates: %v, %v", r, err)
	}
}

// TestSettleResponseBody: a response's headers can come long before its
// body. An action whose page reads the body it fetched (text(), json(),
// arrayBuffer(), at once or after a check of the response; a reader or a
// pipe over a stream) returns once the body has come, with what the page
// made of it; a body the page never reads is not waited for, and one that
// is still streaming at the settle's bound is reported as loading.
func TestSettleResponseBody(t *testing.T) {
	t.Parallel()
	const late = 400 * time.Millisecond
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
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tab, ctx := openURL(t, srv.URL+"/")
	for _, c := range []struct{ button, want string }{
		{"Then", "body of then"}, {"Await", "body of json"}, {"Checked", "body of checked"}, {"Unread", "answered"},
		{"Reader", "one two three (end)"}, {"Piped", "one two three (end)"},
	} {
		o, err := tab.Observe(ctx, ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := tab.Click(ctx, find(t, o, "button", c.button).Ref)
		if err != nil {
			t.Fatalf("click %s: %v", c.button, err)
		}
		if got := eval[string](t, tab, `document.getElementById('out').textContent`); got != c.want {
			t.Errorf("click %s returned before its effect: the page says %q, want %q; %s", c.button, got, c.want, r)
		}
		if r.Pending != 0 || !r.Settled {
			t.Errorf("click %s: %s, want it settled with nothing loading", c.button, r)
		}
	}
	// A stream longer than the settle's network bound: the answer says it
	// is still loading, and the words so far are on the page.
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tab.Click(ctx, find(t, o, "button", "Endless").Ref)
	if err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `document.getElementById('out').textContent`); r.Pending != 1 || !strings.HasPrefix(got, "more more") {
		t.Errorf("click Endless: %s, the page says %q; want it still loading, with words on the page", r, got)
	}
}

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
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tab, ctx := openURL(t, srv.URL+"/")
	click := func(name string) *Result {
		t.Helper()
		o, err := tab.Observe(ctx, ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := tab.Click(ctx, find(t, o, "button", name).Ref)
		if err != nil {
			t.Fatalf("click %s: %v", name, err)
		}
		return r
	}
	out := func() string { return eval[string](t, tab, `document.getElementById('out').textContent`) }
	for _, c := range []struct{ button, want string }{{"Dialog", "dialog open"}, {"Orders", "3 orders"}, {"Widget", "widget ran"}} {
		r := click(c.button)
		if got := out(); got != c.want || !r.Changed || r.Pending != 0 {
			t.Errorf("click %s: %s; the page says %q, want %q", c.button, r, got, c.want)
		}
	}
	r := click("Style")
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(o.Controls, func(c Control) bool { return c.Name == "Revealed" }) {
		t.Errorf("click Style: %s; the look after it has no Revealed button: %v", r, o.Controls)
	}
	r = click("Photo")
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
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tab, ctx := openURL(t, srv.URL+"/")
	if w, err := tab.Wait(ctx, WaitFor{Text: "database ready"}, 5*time.Second); err != nil || !w.Met {
		t.Fatalf("the database never opened: %v, %v", w, err)
	}
	for _, c := range []struct{ button, want string }{
		{"Note", "the saved note"}, {"List", "listed 1"}, {"Cache", "cached hello"},
		{"Blob", "from a blob"}, {"Digest", "digest 32"}, {"Reader", "read by a reader"},
	} {
		o, err := tab.Observe(ctx, ObserveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := tab.Click(ctx, find(t, o, "button", c.button).Ref)
		if err != nil {
			t.Fatalf("click %s: %v", c.button, err)
		}
		if got := eval[string](t, tab, `document.getElementById('out').textContent`); got != c.want || !r.Changed {
			t.Errorf("click %s returned before its effect: %s; the page says %q, want %q", c.button, r, got, c.want)
		}
	}
}
