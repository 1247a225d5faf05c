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

// Action classes: read freely, write within budget, and
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
	// Words in a form's name or id that say submitting it commits
	// something the person cannot undo.
	dangerRE = regexp.MustCompile(`(?i)\b(pay|payment|buy|purchase|order|checkout|check out|delete|remove|send|post|publish|submit order|transfer|confirm purchase|unsubscribe|donate|book now)\b`)
	// Pages where any commit is a payment.
	dangerURLRE = regexp.MustCompile(`(?i)(checkout|payment|/pay\b|/pay/|billing|/cart/confirm)`)
	// wordRE splits a control's name into words.
	wordRE = regexp.MustCompile(`[\p{L}\p{N}$€£#]+`)
)

// commitVerbs are the verbs a control's name commands when the action
// cannot be undone. destructive ones act at once even from a link ("Delete
// account"); the others, on a link, lead to a form ("Post a job", "Send
// feedback") where the committing control is asked about.
var commitVerbs = map[string]bool{
	"pay": true, "payment": true, "buy": true, "purchase": true, "order": true, "checkout": true,
	"delete": true, "remove": true, "send": true, "post": true, "publish": true, "transfer": true,
	"unsubscribe": true, "donate": true, "book": true,
}

var destructiveVerbs = map[string]bool{"delete": true, "remove": true, "unsubscribe": true}

// leadIns come before the verb of a committing name without changing
// it: "Place order", "Confirm purchase", "Yes, delete it".
var leadIns = map[string]bool{"place": true, "confirm": true, "complete": true, "submit": true, "yes": true, "ok": true, "finish": true}

// nounNext are words after which a commit verb is a noun: "Order
// history", "Payment methods".
var nounNext = map[string]bool{
	"history": true, "details": true, "status": true, "summary": true, "number": true, "id": true, "date": true,
	"list": true, "settings": true, "options": true, "methods": true, "method": true, "info": true, "information": true,
	"tracking": true, "preview": true, "draft": true, "title": true,
}

// commandedVerb returns the committing verb a control's name commands, by
// its role in the name: the verb leads it (after a lead-in such as
// "Confirm"), and is not a noun there — "Like post 137" names a post,
// "Order history" a page, "Post 137" a post by its number; "Pay 12 €" pays.
func commandedVerb(name, role string) (string, bool) {
	words := wordRE.FindAllString(strings.ToLower(name), -1)
	for len(words) > 1 && leadIns[words[0]] {
		words = words[1:]
	}
	if len(words) == 0 {
		return "", false
	}
	verb := words[0]
	if len(words) > 1 && words[0] == "check" && words[1] == "out" {
		verb, words = "checkout", words[1:]
	}
	if !commitVerbs[verb] || (role == "link" && !destructiveVerbs[verb]) {
		return "", false
	}
	if len(words) > 1 {
		next := words[1]
		numbered := next[0] == '#' || (next[0] >= '0' && next[0] <= '9')
		if nounNext[next] || (numbered && (verb == "post" || verb == "order")) {
			return "", false
		}
	}
	return verb, true
}

// Classify classes action a on target t, with the reason.
func Classify(a Action, t Target) (Class, string) {
	switch a.Kind {
	case ActScroll, ActNavigate, ActBack, "screenshot", "read_page":
		// Navigation is read-only; where it may go is the navigation
		// policy's business.
		return Read, ""
	case ActHover:
		return Read, ""
	case ActUpload, ActDrag:
		return Write, ""
	case ActDialog:
		// Accepting a confirm commits what its message asks, as the
		// click that raised it would: the message is the control's name.
		if m := dangerRE.FindString(t.Name); a.Accept && m != "" && t.Role != "alert" {
			return Irreversible, fmt.Sprintf("the page asks %q (%s)", clip(t.Name, 120), strings.ToLower(m))
		}
		return Write, ""
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
	if v, ok := commandedVerb(t.Name, t.Role); ok && a.Kind != ActType {
		return Irreversible, fmt.Sprintf("the control %q says %q", t.Name, v)
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
