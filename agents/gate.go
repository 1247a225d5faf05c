package agents

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// The safety gate: one per run (and one per TabGuard), it applies the
// run's Policy where harm can be done — to a destination an agent chose
// before the browser goes there (navigation, destination), to an action on
// its target (action), and to each request the browser holds for it
// (request, scriptRequest) — with the block and allow lists, the run's
// sites as they grow, and the person's answers. What of the person's data
// a request carries is the exfiltration detection's (exfil.go).

// gate applies a Policy for one run, remembering "allow for this run" and
// the run's sites as they grow.
type gate struct {
	policy  Policy
	confirm Confirmer // nil: headless, deny what needs asking
	hints   Hints     // what the face says would allow what headless denies

	allow []hostPattern // the policy's Allow, parsed
	block []hostPattern // the policy's Block, parsed

	mu      sync.Mutex
	sites   []hostPattern   // the run's sites, in the order they joined
	allowed map[string]bool // "allow for this run" answers, by action and target
	passes  map[string]int  // URLs the person approved, once each, for the request guard
	seen    *personal       // the person's data seen during the run (exfil.go)
}

func newGate(p Policy, c Confirmer) *gate {
	return &gate{policy: p, confirm: c, allowed: map[string]bool{}, passes: map[string]int{}, seen: newPersonal(p.Secrets),
		allow: parseHosts(p.Allow), block: parseHosts(p.Block), sites: parseHosts(p.Sites)}
}

// Policy returns the run's policy, as its faces built it.
func (r *Run) Policy() Policy { return r.gate.policy }

// Sites lists the run's sites so far, as people read them.
func (r *Run) Sites() []string {
	r.gate.mu.Lock()
	defer r.gate.mu.Unlock()
	out := make([]string, len(r.gate.sites))
	for i, s := range r.gate.sites {
		out[i] = s.String()
	}
	return out
}

func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// setOrigin adds the origin of raw, a page the run started on or was
// given, to the run's sites.
func (g *gate) setOrigin(raw string) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return
	}
	g.addSite(originSite(u))
}

func (g *gate) addSite(hp hostPattern) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, s := range g.sites {
		if s == hp {
			return
		}
	}
	g.sites = append(g.sites, hp)
}

// inSites reports whether u is one of the run's sites; with no sites yet,
// u becomes the first (the page the run starts on).
func (g *gate) inSites(u *url.URL) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.sites) == 0 {
		g.sites = append(g.sites, originSite(u))
		return true
	}
	return matchesAny(g.sites, u)
}

// hasSites reports whether the run has a site yet.
func (g *gate) hasSites() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.sites) > 0
}

// sitesText names the run's sites for a reason shown to the person.
func (g *gate) sitesText() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.sites) == 1 && g.sites[0].origin != "" {
		return "the run's starting origin " + g.sites[0].origin
	}
	names := make([]string, len(g.sites))
	for i, s := range g.sites {
		names[i] = s.String()
	}
	return "the run's sites (" + strings.Join(names, ", ") + ")"
}

// lists applies the block and allow lists to u.
func (g *gate) lists(raw string, u *url.URL) error {
	if matchesAny(g.block, u) {
		return fmt.Errorf("navigate to %s: %w: %s is on the block list", raw, ErrDenied, u.Host)
	}
	// An allow list of malformed entries alone still allows nothing.
	if len(g.policy.Allow) > 0 && u.Scheme != "about" && !matchesAny(g.allow, u) {
		return fmt.Errorf("navigate to %s: %w: %s is not on the allow list", raw, ErrDenied, u.Host)
	}
	return nil
}

// navigation checks a destination an agent or the planner chose, before
// the browser goes there: the lists, the exfiltration guard and the rule
// on leaving the run's sites. What the person approves here passes the
// request guard once (request, below), so they are asked once.
func (g *gate) navigation(ctx context.Context, agent, raw string) error {
	if err := g.check(ctx, agent, raw); err != nil {
		return err
	}
	g.pass(raw)
	return nil
}

// destination is navigation for a link that opens a new tab: the window
// inherits the tab's guard, whose check of its first request the pass
// answers.
func (g *gate) destination(ctx context.Context, agent, raw string) error {
	return g.navigation(ctx, agent, raw)
}

// check is navigation's check, without the pass.
func (g *gate) check(ctx context.Context, agent, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "about") {
		return fmt.Errorf("navigate to %q: %w: only http and https URLs are allowed", raw, ErrDenied)
	}
	if err := g.lists(raw, u); err != nil {
		return err
	}
	if u.Scheme == "about" || g.inSites(u) {
		return nil
	}
	found := g.seen.leaks(raw, "", nil)
	shown := masked(raw, found)
	c := Confirmation{Agent: agent, Action: "navigate to " + shown, Target: originOf(raw), URL: shown}
	return g.outside(ctx, c, u, found)
}

// outside decides on a request that leaves the run's sites: with the
// person's data in it, only the person may let it go (headless: never);
// otherwise the leaving rule applies. c is the card, without its reason.
func (g *gate) outside(ctx context.Context, c Confirmation, u *url.URL, found []leak) error {
	if len(found) > 0 {
		c.Reason = exfilReason(u, found, g.sitesText())
		d, err := g.ask(ctx, c, false, "headless runs never send the person's data off the run's sites")
		if err == nil && d == AllowForRun {
			g.addSite(originSite(u))
		}
		return err
	}
	if !g.policy.ConfirmLeaveOrigin || g.policy.AllowAnyHost {
		return nil
	}
	c.Reason = "it leaves " + g.sitesText()
	d, err := g.ask(ctx, c, false, "headless runs deny it unless "+g.hints.leaveSites(u.Host))
	if err == nil && d == AllowForRun {
		g.addSite(originSite(u))
	}
	return err
}

// pass lets the request guard through once for raw, which the person (or
// the policy) has just approved.
func (g *gate) pass(raw string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.passes[raw]++
}

// takePass uses up an approval of raw, if there is one.
func (g *gate) takePass(raw string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.passes[raw] == 0 {
		return false
	}
	g.passes[raw]--
	if g.passes[raw] == 0 {
		delete(g.passes, raw)
	}
	return true
}

// action checks an action on its target; irreversible ones need approval.
func (g *gate) action(ctx context.Context, agent string, a Action, t Target) (Class, error) {
	class, reason := Classify(a, t)
	if class != Irreversible {
		return class, nil
	}
	target := strings.TrimSpace(t.Role + " " + fmt.Sprintf("%q", t.Name))
	_, err := g.ask(ctx, Confirmation{Agent: agent, Action: a.String(), Target: target, Reason: reason, URL: t.URL},
		g.policy.AllowIrreversible, "headless runs deny unless "+g.hints.irreversible())
	return class, err
}

// ask gets the person's decision, remembering "allow for this run" for the
// same verbatim action and target. bypass approves without asking (a flag
// the person gave); headless says, in a refusal with nobody to ask, what
// would have allowed it.
func (g *gate) ask(ctx context.Context, c Confirmation, bypass bool, headless string) (Decision, error) {
	key := c.Action + "\x00" + c.Target
	g.mu.Lock()
	ok := g.allowed[key]
	g.mu.Unlock()
	if ok {
		return AllowForRun, nil
	}
	if bypass {
		return AllowOnce, nil
	}
	if g.confirm == nil {
		return Deny, fmt.Errorf("%s: %w: %s, and nobody is there to approve it (%s)", c.Action, ErrDenied, c.Reason, headless)
	}
	d, err := g.confirm.Confirm(ctx, c)
	if err != nil {
		return Deny, fmt.Errorf("confirm %s: %w", c.Action, err)
	}
	switch d {
	case AllowForRun:
		g.mu.Lock()
		g.allowed[key] = true
		g.mu.Unlock()
		return d, nil
	case AllowOnce:
		return d, nil
	}
	return Deny, fmt.Errorf("%s: %w by the user (%s)", c.Action, ErrDenied, c.Reason)
}

// request checks a document request the agent's tab is about to send (the
// browser holds it meanwhile): approved navigations pass once, the lists
// apply, and off the run's sites the person's data may not go without
// them. extra are the tab's cookies and masked values, read before the
// action (while a navigation is held, the page cannot answer), and the
// request's Masked are the masked values the action read before its input.
func (g *gate) request(ctx context.Context, agent string, extra []Secret, r Request) error {
	if r.InPage != "" {
		return refusedInPage(r)
	}
	extra = withMasked(extra, r.Masked)
	if r.Script || r.Subframe {
		// An iframe's document is the page's request, not the agent
		// leaving: held like its script's.
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

// withMasked is extra with the masked values vals it lacks.
func withMasked(extra []Secret, vals []string) []Secret {
	out := extra
	for _, v := range vals {
		if !slices.ContainsFunc(out, func(s Secret) bool { return s.Value == v }) {
			if len(out) == len(extra) {
				out = slices.Clone(extra) // extra is the tab's, shared by its checks
			}
			out = append(out, Secret{What: "a masked field's value", Value: v})
		}
	}
	return out
}

// refusedInPage is the refusal of what the browser stopped in the page:
// what and where it would have gone. The person is not asked: nothing
// waits for an answer, the page was told no already.
func refusedInPage(r Request) error {
	const why = "the browser stops it in a page an agent drives"
	u, err := url.Parse(r.URL)
	if r.URL == "" || err != nil || u.Host == "" {
		return fmt.Errorf("%s: %w (%s)", r.InPage, ErrDenied, why)
	}
	return fmt.Errorf("%s to %s: %w (%s)", r.InPage, u.Host, ErrDenied, why)
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
	verb := "let the page's script send data to "
	if r.Subframe {
		verb = "let a frame of the page load "
	}
	c := Confirmation{Agent: agent, Action: verb + shown, Target: originOf(r.URL), URL: shown}
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
