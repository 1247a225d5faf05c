package agents

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Class is how much harm an action can do.
type Class int

// Action classes (seed 004): read freely, write within budget, and
// irreversible only with the person's approval.
const (
	Read Class = iota
	Write
	Irreversible
)

func (c Class) String() string {
	switch c {
	case Read:
		return "read"
	case Write:
		return "write"
	case Irreversible:
		return "irreversible"
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

var (
	// Words on a control that commit something the person cannot undo.
	dangerRE = regexp.MustCompile(`(?i)\b(pay|payment|buy|purchase|order|checkout|check out|delete|remove|send|post|publish|submit order|transfer|confirm purchase|unsubscribe|donate|book now)\b`)
	// Pages where any commit is a payment.
	dangerURLRE = regexp.MustCompile(`(?i)(checkout|payment|/pay\b|/pay/|billing|/cart/confirm)`)
)

// Classify classes action a on target t, with the reason.
func Classify(a Action, t Target) (Class, string) {
	switch a.Kind {
	case ActScroll, ActNavigate, ActBack, "screenshot", "read_page":
		// Navigation is read-only; where it may go is the navigation
		// policy's business.
		return Read, ""
	case ActType, ActTypeFocused, ActSelect:
		if !a.Submit {
			return Write, ""
		}
	}
	commits := a.Kind == ActClick || a.Kind == ActClickAt || a.Submit ||
		(a.Kind == ActPress && strings.EqualFold(a.Key, "Enter"))
	if !commits {
		return Write, ""
	}
	if m := dangerRE.FindString(t.Name); m != "" && a.Kind != ActType {
		return Irreversible, fmt.Sprintf("the control %q says %q", t.Name, strings.ToLower(m))
	}
	if t.Role == "button" || t.Role == "" || a.Submit || a.Kind == ActPress {
		if m := dangerRE.FindString(t.Form); m != "" {
			return Irreversible, fmt.Sprintf("it submits the form %q (%s)", t.Form, strings.ToLower(m))
		}
	}
	if t.Role != "link" && dangerURLRE.MatchString(t.URL) {
		return Irreversible, fmt.Sprintf("it commits on a payment page (%s)", t.URL)
	}
	return Write, ""
}

// Decision is the person's answer to a confirmation.
type Decision int

// Answers to a confirmation.
const (
	Deny Decision = iota
	AllowOnce
	AllowForRun
)

func (d Decision) String() string {
	switch d {
	case Deny:
		return "deny"
	case AllowOnce:
		return "allow once"
	case AllowForRun:
		return "allow for this run"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// Confirmation asks the person to approve an action, shown verbatim.
type Confirmation struct {
	Agent  string `json:"agent"`
	Action string `json:"action"` // verbatim
	Target string `json:"target"`
	Reason string `json:"reason"`
	URL    string `json:"url,omitempty"`
}

// Confirmer asks the person. It blocks until they answer or ctx ends.
type Confirmer interface {
	Confirm(ctx context.Context, c Confirmation) (Decision, error)
}

// ConfirmFunc adapts a function to Confirmer.
type ConfirmFunc func(ctx context.Context, c Confirmation) (Decision, error)

// Confirm calls f.
func (f ConfirmFunc) Confirm(ctx context.Context, c Confirmation) (Decision, error) { return f(ctx, c) }

// Policy is a run's safety policy.
type Policy struct {
	// Allow, when not empty, is the only hosts navigation may reach: host
	// patterns (see ValidateHost), each matching its host and that host's
	// subdomains, on its port when it names one. A list whose every entry
	// is malformed allows nothing.
	Allow []string
	// Block lists host patterns navigation may never reach, matched as
	// Allow's.
	Block []string
	// ConfirmLeaveOrigin asks the person before an agent leaves the run's
	// sites (headless: denies it unless AllowAnyHost). The sites are Sites,
	// the origins of the tabs the run was given or started on, the hosts
	// the task names, and the hosts the person allowed during the run.
	ConfirmLeaveOrigin bool
	// Sites are host patterns the run starts with: the hosts the task
	// names, the attached tabs' hosts, and vroom run's --allow-host.
	Sites []string
	// AllowAnyHost lets agents leave the run's sites without asking
	// (vroom run --allow-any-host). It never lifts the exfiltration guard.
	AllowAnyHost bool
	// Secrets are values that never leave the run's sites without the
	// person, whatever else allows it: the API key.
	Secrets []string
	// AllowIrreversible approves irreversible actions without asking
	// (vroom run --allow-irreversible).
	AllowIrreversible bool
}

// ErrDenied is returned for an action the policy or the person refused.
var ErrDenied = errors.New("denied")

// gate applies a Policy for one run, remembering "allow for this run" and
// the run's sites as they grow.
type gate struct {
	policy  Policy
	confirm Confirmer // nil: headless, deny what needs asking

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
// request guard once (request, in exfil.go), so they are asked once.
func (g *gate) navigation(ctx context.Context, agent, raw string) error {
	if err := g.destination(ctx, agent, raw); err != nil {
		return err
	}
	g.pass(raw)
	return nil
}

// destination is navigation's check without the pass: for a link that
// opens a new tab, whose request no guard of this tab will see.
func (g *gate) destination(ctx context.Context, agent, raw string) error {
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
	d, err := g.ask(ctx, c, false, "headless runs deny it unless --allow-host "+u.Host+" or --allow-any-host")
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
		g.policy.AllowIrreversible, "headless runs deny unless --allow-irreversible")
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
