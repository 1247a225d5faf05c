package agents

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
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

// Hints are a face's words, put into the refusals of a run that has
// nobody to ask, for what would have allowed the action: vroom run names
// its flags, the desktop its Settings. A zero field takes a neutral
// default, so agents itself names no face's controls.
type Hints struct {
	// LeaveSites says what lets the run reach host (as the URL names it,
	// with its port), outside the run's sites, without asking: "--allow-host
	// example.com or --allow-any-host". Nil: "the run is allowed to reach
	// example.com".
	LeaveSites func(host string) string
	// Irreversible says what lets the run take irreversible actions
	// without asking: "--allow-irreversible". Empty: "the run is allowed
	// irreversible actions".
	Irreversible string
}

// leaveSites is h.LeaveSites(host), or its default.
func (h Hints) leaveSites(host string) string {
	if h.LeaveSites == nil {
		return "the run is allowed to reach " + host
	}
	return h.LeaveSites(host)
}

// irreversible is h.Irreversible, or its default.
func (h Hints) irreversible() string {
	if h.Irreversible == "" {
		return "the run is allowed irreversible actions"
	}
	return h.Irreversible
}

// ErrDenied is returned for an action the policy or the person refused.
var ErrDenied = errors.New("denied")
