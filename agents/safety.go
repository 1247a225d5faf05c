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
	// Allow, when not empty, is the only hosts navigation may reach (a
	// host matches itself and its subdomains).
	Allow []string
	// Block lists hosts navigation may never reach.
	Block []string
	// ConfirmLeaveOrigin asks the person before navigating away from the
	// run's starting origin.
	ConfirmLeaveOrigin bool
	// AllowIrreversible approves irreversible actions without asking
	// (vroom run --allow-irreversible).
	AllowIrreversible bool
}

// ErrDenied is returned for an action the policy or the person refused.
var ErrDenied = errors.New("denied")

// gate applies a Policy for one run, remembering "allow for this run".
type gate struct {
	policy  Policy
	confirm Confirmer // nil: headless, deny what needs asking
	origin  string    // the starting origin, once known

	mu      sync.Mutex
	allowed map[string]bool
}

func newGate(p Policy, c Confirmer) *gate {
	return &gate{policy: p, confirm: c, allowed: map[string]bool{}}
}

func hostMatches(host, pattern string) bool {
	pattern = strings.ToLower(strings.TrimPrefix(pattern, "*."))
	host = strings.ToLower(host)
	return host == pattern || strings.HasSuffix(host, "."+pattern)
}

func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// setOrigin records the run's starting origin, the first one seen.
func (g *gate) setOrigin(raw string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.origin == "" {
		g.origin = originOf(raw)
	}
}

// navigation checks a destination against the lists and the origin rule.
func (g *gate) navigation(ctx context.Context, agent, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "about") {
		return fmt.Errorf("navigate to %q: %w: only http and https URLs are allowed", raw, ErrDenied)
	}
	host := u.Hostname()
	for _, b := range g.policy.Block {
		if hostMatches(host, b) {
			return fmt.Errorf("navigate to %s: %w: %s is on the block list", raw, ErrDenied, host)
		}
	}
	if len(g.policy.Allow) > 0 {
		ok := false
		for _, a := range g.policy.Allow {
			ok = ok || hostMatches(host, a)
		}
		if !ok {
			return fmt.Errorf("navigate to %s: %w: %s is not on the allow list", raw, ErrDenied, host)
		}
	}
	g.mu.Lock()
	origin := g.origin
	g.mu.Unlock()
	if g.policy.ConfirmLeaveOrigin && origin != "" && originOf(raw) != origin {
		return g.ask(ctx, Confirmation{
			Agent: agent, Action: "navigate to " + raw, Target: originOf(raw),
			Reason: "it leaves the run's starting origin " + origin, URL: raw,
		})
	}
	return nil
}

// action checks an action on its target; irreversible ones need approval.
func (g *gate) action(ctx context.Context, agent string, a Action, t Target) (Class, error) {
	class, reason := Classify(a, t)
	if class != Irreversible {
		return class, nil
	}
	target := strings.TrimSpace(t.Role + " " + fmt.Sprintf("%q", t.Name))
	return class, g.ask(ctx, Confirmation{Agent: agent, Action: a.String(), Target: target, Reason: reason, URL: t.URL})
}

// ask gets the person's decision, remembering "allow for this run" for the
// same verbatim action and target.
func (g *gate) ask(ctx context.Context, c Confirmation) error {
	key := c.Action + "\x00" + c.Target
	g.mu.Lock()
	ok := g.allowed[key]
	g.mu.Unlock()
	if ok || g.policy.AllowIrreversible {
		return nil
	}
	if g.confirm == nil {
		return fmt.Errorf("%s: %w: %s, and nobody is there to approve it (headless runs deny unless --allow-irreversible)", c.Action, ErrDenied, c.Reason)
	}
	d, err := g.confirm.Confirm(ctx, c)
	if err != nil {
		return fmt.Errorf("confirm %s: %w", c.Action, err)
	}
	switch d {
	case AllowForRun:
		g.mu.Lock()
		g.allowed[key] = true
		g.mu.Unlock()
		return nil
	case AllowOnce:
		return nil
	}
	return fmt.Errorf("%s: %w by the user (%s)", c.Action, ErrDenied, c.Reason)
}
