package agents

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// The exfiltration guard: a request an agent's tab sends off the run's
// sites may not carry the person's data unless the person lets it. The
// data is what the run has seen of them (emails and names shown on pages,
// what the agents typed), what the policy names (the API key) and what the
// tab holds (cookies of the run's sites, values of masked fields).

// Request is a request an agent's tab is about to send: a document (a
// navigation, a form's submission, a redirect's next hop), or one a page's
// script sends (fetch, XHR, a beacon, an image it adds). The browser holds
// it until the guard answers.
type Request struct {
	URL    string
	Method string
	// Body is the data of a POST, as sent.
	Body string
	// Redirect is set for the hop of a redirect.
	Redirect bool
	// Script is set for a request a page's script sent.
	Script bool
}

// GuardedTab is a Tab whose document requests can be held for a check,
// which the executor installs for as long as it holds the tab. The real
// tab does (app's adapter over the browser's request interception); a tab
// without it has only the checks before an action.
type GuardedTab interface {
	Tab
	// Guard holds every document request of the tab, and those its pages'
	// scripts send, until check answers: nil lets it go, an error stops
	// it (the page stays where it was). stop removes the guard.
	Guard(ctx context.Context, check func(ctx context.Context, r Request) error) (stop func(), err error)
	// Secrets returns values of the person's that the tab holds and no
	// page may send elsewhere: the cookies of the sites given (host
	// patterns), and the values of masked fields (passwords, card numbers).
	Secrets(ctx context.Context, sites []string) ([]Secret, error)
}

// Secret is a value of the person's the tab holds, with what it is
// ("a cookie of example.com", "a masked field's value").
type Secret struct {
	What  string
	Value string
	// Cookie marks a cookie's value: pages' scripts send first-party
	// cookies' values (an analytics id) to other sites all the time.
	Cookie bool
}

// leak is one piece of the person's data found in a request.
type leak struct {
	what  string // "your email", "text an agent typed"
	value string // shown to the person; "" for a secret never shown
	hide  string // a secret's value, masked wherever the request is shown
}

func (l leak) String() string {
	if l.value == "" {
		return l.what
	}
	return fmt.Sprintf("%s %q", l.what, l.value)
}

// Minimum lengths below which a value is too common to mean anything in a
// URL ("1", "yes", a two-letter code).
const (
	minTyped  = 4
	minSecret = 6
)

var (
	emailRE = regexp.MustCompile(`(?i)\b[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,24}\b`)
	// A signed-in account's name as pages show it.
	accountNameRE = regexp.MustCompile(`(?i)\b(?:signed in as|logged in as|welcome back,?|welcome,|hello,|hi,)\s+([\p{Lu}][\p{L}'.-]+(?:\s+[\p{Lu}][\p{L}'.-]+){0,2})`)
)

// personal is the person's data the run has seen, safe for concurrent use.
type personal struct {
	mu      sync.Mutex
	values  map[string]leak // lower-cased value -> what it is
	secrets []string        // the policy's secrets (the API key)
}

func newPersonal(secrets []string) *personal {
	p := &personal{values: map[string]leak{}}
	for _, s := range secrets {
		if len(s) >= minSecret {
			p.secrets = append(p.secrets, s)
		}
	}
	return p
}

func (p *personal) add(value string, l leak) {
	v := strings.ToLower(strings.TrimSpace(value))
	if len(v) < minTyped {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.values[v]; !ok {
		p.values[v] = l
	}
}

// saw collects the emails and account names a page shows.
func (p *personal) saw(text string) {
	for _, m := range emailRE.FindAllString(text, -1) {
		p.add(m, leak{what: "your email", value: m})
	}
	for _, m := range accountNameRE.FindAllStringSubmatch(text, -1) {
		p.add(m[1], leak{what: "your name", value: m[1]})
	}
}

// typed remembers what an agent typed into a page.
func (p *personal) typed(text string, sensitive bool) {
	if sensitive {
		p.add(text, leak{what: "a masked field's value"})
		return
	}
	p.add(text, leak{what: "text an agent typed", value: text})
}

// leaks lists the person's data found in a request's URL and body, with
// extra (the tab's cookies and masked values) searched too. The URL and
// body are searched as sent and percent-decoded; each value also in
// base64.
func (p *personal) leaks(rawURL, body string, extra []Secret) []leak {
	return p.find(rawURL, body, extra, false)
}

// secretLeaks is leaks for the secrets alone (masked values, the API key,
// extra): what a page's script may not send off the sites.
func (p *personal) secretLeaks(rawURL, body string, extra []Secret) []leak {
	return p.find(rawURL, body, extra, true)
}

// find is leaks, or secretLeaks when secretsOnly.
func (p *personal) find(rawURL, body string, extra []Secret, secretsOnly bool) []leak {
	hay := haystack(rawURL) + "\x00" + haystack(body)
	raw := rawURL + "\x00" + body
	var found []leak
	in := func(v string) bool {
		lv := strings.ToLower(v)
		if strings.Contains(hay, lv) {
			return true
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
			if strings.Contains(raw, enc.EncodeToString([]byte(v))) {
				return true
			}
		}
		return false
	}
	p.mu.Lock()
	for v, l := range p.values {
		if secretsOnly && l.value != "" {
			continue // shown or typed in the clear: not a secret
		}
		if in(v) {
			if l.value == "" {
				l.hide = v
			}
			found = append(found, l)
		}
	}
	secrets := p.secrets
	p.mu.Unlock()
	for _, s := range secrets {
		if in(s) {
			found = append(found, leak{what: "the API key", hide: s})
		}
	}
	for _, s := range extra {
		if len(s.Value) >= minSecret && in(s.Value) {
			found = append(found, leak{what: s.What, hide: s.Value})
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].String() < found[j].String() })
	return found
}

// haystack is s lower-cased, with its percent-encoding (and a form's +
// for space) undone once and twice, so an encoded value is still found.
func haystack(s string) string {
	out := strings.ToLower(s)
	cur := s
	for range 2 {
		d, err := url.QueryUnescape(cur)
		if err != nil {
			d, err = url.PathUnescape(cur)
		}
		if err != nil || d == cur {
			break
		}
		out += "\x00" + strings.ToLower(d)
		cur = d
	}
	return out
}

// masked is raw with the secrets among found masked, so a card or a log
// line never shows them.
func masked(raw string, found []leak) string {
	for _, l := range found {
		if l.hide == "" {
			continue
		}
		for _, v := range []string{l.hide, url.QueryEscape(l.hide), base64.StdEncoding.EncodeToString([]byte(l.hide)), base64.RawURLEncoding.EncodeToString([]byte(l.hide))} {
			raw = replaceFold(raw, v, "••••")
		}
	}
	return raw
}

// replaceFold replaces old in s, ignoring case.
func replaceFold(s, old, new string) string {
	if old == "" {
		return s
	}
	ls, lo := strings.ToLower(s), strings.ToLower(old)
	var b strings.Builder
	for {
		i := strings.Index(ls, lo)
		if i < 0 || len(ls) != len(s) {
			break
		}
		b.WriteString(s[:i] + new)
		s, ls = s[i+len(old):], ls[i+len(old):]
	}
	b.WriteString(s)
	return b.String()
}

// exfilReason is the card's reason: where the data would go and what it is.
func exfilReason(u *url.URL, found []leak, sites string) string {
	names := make([]string, len(found))
	for i, l := range found {
		names[i] = l.String()
	}
	return fmt.Sprintf("it would send %s to %s, outside %s", strings.Join(names, ", "), u.Host, sites)
}

// request checks a document request the agent's tab is about to send (the
// browser holds it meanwhile): approved navigations pass once, the lists
// apply, and off the run's sites the person's data may not go without
// them. extra are the tab's cookies and masked values, read before the
// action: while a navigation is held, the page cannot answer.
func (g *gate) request(ctx context.Context, agent string, extra []Secret, r Request) error {
	if r.Script {
		return g.scriptRequest(ctx, agent, extra, r)
	}
	if r.Method == "" || r.Method == "GET" {
		if g.takePass(r.URL) {
			return nil
		}
	}
	u, err := url.Parse(r.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		// about:, data: and the browser's own pages reach no server.
		return nil
	}
	if err := g.lists(r.URL, u); err != nil {
		return err
	}
	if g.inSites(u) {
		return nil
	}
	verb := "navigate to "
	switch {
	case r.Method == "POST":
		verb = "send a form to "
	case r.Redirect:
		verb = "follow a redirect to "
	}
	found := g.seen.leaks(r.URL, r.Body, extra)
	shown := masked(r.URL, found)
	c := Confirmation{Agent: agent, Action: verb + shown, Target: originOf(r.URL), URL: shown}
	return g.outside(ctx, c, u, found)
}

// scriptRequest checks a request a page's script is about to send. Off the
// run's sites it may not carry the person's secrets — what was typed into a
// password, card or code field, a masked field's value, the API key — without
// the person (headless: never): a skimmer on a checkout page is stopped. The
// emails, names and plain text the guard knows are not looked for here:
// pages legitimately send what is typed or shown to other sites' APIs (a
// search box's suggestions service, a chat widget), and a card for each would
// bury the person; what a page's script may send of them is the page's
// business, as for any visitor. Nor does leaving the sites ask: a page loads
// from CDNs and APIs all the time.
func (g *gate) scriptRequest(ctx context.Context, agent string, extra []Secret, r Request) error {
	u, err := url.Parse(r.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !g.hasSites() || g.inSites(u) {
		return nil
	}
	var fields []Secret
	for _, s := range extra {
		if !s.Cookie {
			fields = append(fields, s)
		}
	}
	found := g.seen.secretLeaks(r.URL, r.Body, fields)
	if len(found) == 0 {
		return nil
	}
	shown := masked(r.URL, found)
	c := Confirmation{Agent: agent, Action: "let the page's script send data to " + shown, Target: originOf(r.URL), URL: shown}
	return g.outside(ctx, c, u, found)
}

func (g *gate) siteList() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]string, len(g.sites))
	for i, s := range g.sites {
		out[i] = hostPattern{host: s.host, port: s.port}.String()
	}
	return out
}

// guard watches an executor's tab for the exfiltration guard: it wraps
// e.tab so what pages show and what the agent types is collected, and
// holds the tab's document requests for the gate while the agent has the
// tab (not while the person drives it). The returned func removes it.
func (e *executor) guard(ctx context.Context) func() {
	w := &watchedTab{Tab: e.tab, seen: e.r.gate.seen, sites: e.r.gate.siteList}
	e.tab = w
	gt, ok := guardedOf(w.Tab)
	if !ok {
		return func() {}
	}
	w.guarded = gt
	stop, err := gt.Guard(ctx, func(ctx context.Context, r Request) error {
		if e.r.info(e.proc).State == ProcTakenOver {
			return nil // the person's own navigation
		}
		w.begin()
		defer w.end()
		err := e.r.gate.request(ctx, e.name, w.secrets(), r)
		if err != nil {
			e.refusedRequest(r, err)
			w.refused(err, r.Script)
		}
		return err
	})
	if err != nil {
		e.r.room.Notice("%s's requests cannot be checked: %s", e.name, err)
		return func() {}
	}
	return stop
}

// refusedRequest logs a request the guard stopped, as refused actions are.
func (e *executor) refusedRequest(r Request, err error) {
	args, _ := json.Marshal(map[string]string{"method": r.Method, "url": r.URL})
	e.r.log.Write(LogRecord{Event: LogPolicyDenied, Agent: e.name, PID: e.pid, Step: e.steps, Tool: "request",
		Args: args, URL: r.URL, Error: err.Error()})
	e.r.room.Notice("%s was refused: %s", e.name, err)
}

// Unwrapper is a Tab that decorates another (error mapping, fault
// watching); the guard looks through it for the GuardedTab underneath.
type Unwrapper interface {
	Unwrap() Tab
}

// Unwrap returns the provider's tab the fault watcher decorates.
func (t *faultTab) Unwrap() Tab { return t.Tab }

// guardedOf finds the GuardedTab under t's decorations.
func guardedOf(t Tab) (GuardedTab, bool) {
	for range 8 { // decorations are few; a cycle must not spin
		if g, ok := t.(GuardedTab); ok {
			return g, true
		}
		u, ok := t.(Unwrapper)
		if !ok {
			return nil, false
		}
		t = u.Unwrap()
	}
	return nil, false
}

// watchedTab is an executor's tab seen by the exfiltration guard.
type watchedTab struct {
	Tab
	seen    *personal
	sites   func() []string // the run's sites, whose cookies are secrets
	guarded GuardedTab      // nil: the checks before actions only

	mu       sync.Mutex
	extra    []Secret      // the tab's secrets, read before the last action
	checking int           // guard checks in progress
	idle     chan struct{} // closed when checking drops to 0
	last     string        // the refusal during the current action
	byScript bool          // last was of a request a page's script sent
}

func (w *watchedTab) begin() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.checking == 0 {
		w.idle = make(chan struct{})
	}
	w.checking++
}

func (w *watchedTab) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.checking--; w.checking == 0 {
		close(w.idle)
	}
}

// settled waits for the guard's checks in progress, or ctx's end.
func (w *watchedTab) settled(ctx context.Context) {
	w.mu.Lock()
	idle := w.idle
	n := w.checking
	w.mu.Unlock()
	if n == 0 {
		return
	}
	select {
	case <-idle:
	case <-ctx.Done():
	}
}

// secrets returns the tab's secrets as read before the current action.
func (w *watchedTab) secrets() []Secret {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.extra
}

// readSecrets reads the tab's cookies and masked values before an action
// that may send a request. Best effort: a tab that cannot say still has
// what the run saw checked.
func (w *watchedTab) readSecrets(ctx context.Context, a Action) {
	if w.guarded == nil || a.Kind == ActScroll || a.Kind == ActNavigate {
		return
	}
	ss, err := w.guarded.Secrets(ctx, w.sites())
	if err != nil {
		return
	}
	w.mu.Lock()
	w.extra = ss
	w.mu.Unlock()
}

func (w *watchedTab) refused(err error, script bool) {
	w.mu.Lock()
	w.last, w.byScript = err.Error(), script
	w.mu.Unlock()
}

// Observe notes the emails and names the page shows.
func (w *watchedTab) Observe(ctx context.Context) (Observation, error) {
	o, err := w.Tab.Observe(ctx)
	w.seen.saw(o.Text)
	return o, err
}

// Diff notes the emails and names that appeared.
func (w *watchedTab) Diff(ctx context.Context) (string, error) {
	d, err := w.Tab.Diff(ctx)
	w.seen.saw(d)
	return d, err
}

// ReadPage notes the emails and names in the page's text.
func (w *watchedTab) ReadPage(ctx context.Context) (string, error) {
	t, err := w.Tab.ReadPage(ctx)
	w.seen.saw(t)
	return t, err
}

// Act notes what the agent types, and waits for the guard's checks of the
// requests the action caused: a refusal is the action's verdict, so the
// model reads that it was stopped rather than that nothing happened.
func (w *watchedTab) Act(ctx context.Context, a Action) (Outcome, error) {
	o, _, err := w.act(ctx, a)
	return o, err
}

// act is Act, also returning why a request it caused was refused.
func (w *watchedTab) act(ctx context.Context, a Action) (Outcome, string, error) {
	if a.Text != "" && (a.Kind == ActType || a.Kind == ActTypeFocused) {
		sens := false
		if t, err := w.Tab.Target(ctx, a); err == nil {
			sens = t.Sensitive
		}
		w.seen.typed(a.Text, sens)
	}
	w.readSecrets(ctx, a)
	w.mu.Lock()
	w.last = ""
	w.mu.Unlock()
	// The tab answers an action that asked for a navigation with what
	// became of it (browser.Tab.awaitRequested), so the guard's check of
	// that navigation has ended by now; others may still run.
	o, err := w.Tab.Act(ctx, a)
	w.settled(ctx)
	w.mu.Lock()
	why, script := w.last, w.byScript
	w.mu.Unlock()
	switch {
	case err != nil || why == "":
	case script:
		// The action itself happened; the page's script, reacting to it,
		// tried to send something it may not.
		o.Summary += fmt.Sprintf("; meanwhile the page's script was refused: %s. It was not sent", why)
	default:
		o.Summary = fmt.Sprintf("%s: refused: %s. The page did not send it; do not try to send it another way", a, why)
	}
	return o, why, err
}
