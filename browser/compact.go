package browser

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Compact is the one-line-per-control text form for a model. A query's
// observation is only its answer: the controls that match and the
// passages of text that do, with the controls near them; the page's
// headings and text are the whole view's, which the model already has.
func (o *Observation) Compact() string {
	var sb strings.Builder
	// The version is the structured result's: no tool takes it, so the
	// model would only read it.
	sb.WriteString(PageLine(o.Title, o.URL))
	switch {
	case o.DialogRef != "":
		fmt.Fprintf(&sb, "dialog %s %q (its controls first)\n", o.DialogRef, o.Dialog)
	case o.Dialog != "":
		fmt.Fprintf(&sb, "dialog %q (its controls first)\n", o.Dialog)
	}
	if o.Blocked > 0 {
		fmt.Fprintf(&sb, "the page behind the dialog is blocked: %d controls there cannot be used until it is closed\n", o.Blocked)
	}
	if o.Query != "" {
		o.compactQuery(&sb)
		return sb.String()
	}
	if hs := o.headingsBeyondText(); len(hs) > 0 {
		sb.WriteString("headings: ")
		sb.WriteString(strings.Join(hs, " | "))
		sb.WriteByte('\n')
	}
	listed := o.listed()
	o.writeCount(&sb, len(listed))
	// Controls outside the viewport come last, under one header, instead
	// of a flag on every line.
	split := len(listed)
	for i, c := range listed {
		if !c.InView && !c.InDialog {
			split = i
			break
		}
	}
	writeControls(&sb, "", listed[:split])
	if split < len(listed) {
		sb.WriteString("outside the viewport:\n")
		rest := make([]Control, 0, len(listed)-split)
		for _, c := range listed[split:] {
			c.InView = c.InView || !c.InDialog
			rest = append(rest, c)
		}
		writeControls(&sb, "", rest)
	}
	if o.Text != "" {
		fmt.Fprintf(&sb, "text: %s\n", o.Text)
		if h := moreText(o.TextAbove, o.TextBelow); h != "" {
			sb.WriteString(h + "\n")
		}
	}
	return sb.String()
}

// PageLine is the first line of an observation's compact form: the page's
// title and URL. A client that was told the same line last may be sent the
// rest alone.
func PageLine(title, url string) string {
	return fmt.Sprintf("page %q %s\n", clipText(title, 80), url)
}

// writeCount writes the controls line, when it says more than the list
// below it: that the page has more than are listed, frames that were not
// looked into, or no controls at all.
func (o *Observation) writeCount(sb *strings.Builder, listed int) {
	more := o.Candidates > listed
	if !more && o.Unobserved == 0 && listed > 0 {
		return
	}
	if listed == 0 && !more {
		sb.WriteString("no controls")
	} else {
		fmt.Fprintf(sb, "controls %d", listed)
	}
	if more {
		fmt.Fprintf(sb, " of %d candidates", o.Candidates)
	}
	// Controls blocked behind a modal are counted, not listed: the line
	// above says why, and no search would make them usable.
	if o.Truncated && o.Candidates-o.Blocked > listed {
		sb.WriteString(" (more exist: call observe with query or roles)")
	}
	if o.Unobserved > 0 {
		fmt.Fprintf(sb, "; %d frames not observed", o.Unobserved)
	}
	sb.WriteByte('\n')
}

// headingsBeyondText returns the headings the text part does not show
// as its own heading lines: the outline of what is above or below the
// text window, without repeating what the model reads anyway.
func (o *Observation) headingsBeyondText() []string {
	var out []string
	for _, h := range o.Headings {
		if !textHasHeading(o.Text, h) {
			out = append(out, h)
		}
	}
	return out
}

// textHasHeading reports whether text holds h as a heading line ("# h",
// "## h"…), as the text part writes headings.
func textHasHeading(text, h string) bool {
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\n")
		if t := strings.TrimLeft(line, "#"); len(t) < len(line) && strings.TrimSpace(t) == h {
			return true
		}
	}
	return false
}

// compactQuery writes a query's answer: the matching controls (where
// they are does not matter: an action scrolls to its target), then the
// matching passages, each with the refs near it.
func (o *Observation) compactQuery(sb *strings.Builder) {
	listed := o.listed()
	switch {
	case len(listed) == 0 && len(o.Passages) == 0:
		fmt.Fprintf(sb, "nothing matches %q: no control, no text", o.Query)
	case len(listed) == 0:
		fmt.Fprintf(sb, "no control matches %q", o.Query)
	default:
		fmt.Fprintf(sb, "controls %d of %d matching %q", len(listed), o.Candidates, o.Query)
	}
	if o.Truncated && o.Candidates-o.Blocked > len(listed) {
		sb.WriteString(" (more exist: narrow the query)")
	}
	if o.Unobserved > 0 {
		fmt.Fprintf(sb, "; %d frames not observed", o.Unobserved)
	}
	sb.WriteByte('\n')
	shown := make([]Control, len(listed))
	for i, c := range listed {
		c.InView = true
		shown[i] = c
	}
	writeControls(sb, "", shown)
	if len(o.Passages) == 0 {
		return
	}
	near := map[string]*Control{}
	for i := range o.Controls {
		if c := &o.Controls[i]; c.Near {
			near[c.Ref] = c
		}
	}
	sb.WriteString("text matching:\n")
	for _, p := range o.Passages {
		sb.WriteString("- " + p.Text)
		for i, ref := range p.Refs {
			sb.WriteString(map[bool]string{true: " (near: ", false: ", "}[i == 0])
			if c := near[ref]; c != nil {
				shownNear := *c
				shownNear.InView = true
				writeControl(sb, &shownNear)
			} else {
				sb.WriteString(ref)
			}
		}
		if len(p.Refs) > 0 {
			sb.WriteByte(')')
		}
		sb.WriteByte('\n')
	}
}

// listed are the controls an observation ranked, without those given
// only for being near a passage.
func (o *Observation) listed() []Control {
	n := 0
	for i := range o.Controls {
		if !o.Controls[i].Near {
			n++
		}
	}
	if n == len(o.Controls) {
		return o.Controls
	}
	out := make([]Control, 0, n)
	for _, c := range o.Controls {
		if !c.Near {
			out = append(out, c)
		}
	}
	return out
}

// moreText says how much of the page's text lies out of view, or "".
func moreText(above, below int) string {
	switch {
	case above > 0 && below > 0:
		return fmt.Sprintf("(about %s more characters below and %s above: read_page for all)", approxChars(below), approxChars(above))
	case below > 0:
		return fmt.Sprintf("(about %s more characters below: read_page for all)", approxChars(below))
	case above > 0:
		return fmt.Sprintf("(about %s more characters above: read_page for all)", approxChars(above))
	}
	return ""
}

// approxChars rounds n for a person: 40, 870, 3,400, 12,000.
func approxChars(n int) string {
	switch {
	case n < 100:
		n = max(10, (n+5)/10*10)
	case n < 10000:
		n = (n + 50) / 100 * 100
	default:
		n = (n + 500) / 1000 * 1000
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Brief renders part of a page observed Within (a layer over the target of
// a refused action): its controls one a line and its text, without the
// page's header lines, so it fits under an error.
func (o *Observation) Brief() string {
	var sb strings.Builder
	writeControls(&sb, "", o.listed())
	if o.Truncated {
		fmt.Fprintf(&sb, "(and %d more in it)\n", o.Candidates-len(o.listed()))
	}
	if len(o.Headings) > 0 {
		fmt.Fprintf(&sb, "headings: %s\n", strings.Join(o.Headings, " | "))
	}
	if o.Text != "" {
		fmt.Fprintf(&sb, "text: %s\n", o.Text)
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// writeControls writes cs one a line after prefix, a run of controls
// that step together written as one line: the same role and state, refs
// one apart and names that differ only in a number one apart ("e1…e37
// link "Item 1"…"Item 37"", a list of items, a calendar's days). Nothing
// is lost: each ref of the run is the name with the same step.
func writeControls(sb *strings.Builder, prefix string, cs []Control) {
	for i := 0; i < len(cs); {
		j := runEnd(cs, i)
		sb.WriteString(prefix)
		if j-i >= minRun {
			first, last := cs[i], cs[j-1]
			fmt.Fprintf(sb, "%s…%s %s %q…%q", first.Ref, last.Ref, first.Role, first.Name, last.Name)
			writeStates(sb, &last)
			sb.WriteByte('\n')
			i = j
			continue
		}
		writeControl(sb, &cs[i])
		sb.WriteByte('\n')
		i++
	}
}

// minRun is the shortest run written as one line.
const minRun = 3

// stepRE splits a name at its last number.
var stepRE = regexp.MustCompile(`^(.*?)([1-9][0-9]{0,8}|0)(\D*)$`)

// runEnd is the end of the run of stepping controls that starts at i.
func runEnd(cs []Control, i int) int {
	ref0, pre, n0, suf, ok := stepOf(&cs[i])
	if !ok {
		return i + 1
	}
	j := i + 1
	for ; j < len(cs); j++ {
		r, p, n, s, ok := stepOf(&cs[j])
		if !ok || r != ref0+(j-i) || n != n0+(j-i) || p != pre || s != suf || !sameLook(&cs[i], &cs[j]) {
			break
		}
	}
	return j
}

// stepOf is a control's ref number and its name split at its number;
// ok false when the control cannot be part of a run (no number, a value
// or options of its own).
func stepOf(c *Control) (ref int, pre string, n int, suf string, ok bool) {
	if c.Value != "" || len(c.Options) > 0 || !strings.HasPrefix(c.Ref, "e") {
		return 0, "", 0, "", false
	}
	ref, err := strconv.Atoi(c.Ref[1:])
	if err != nil {
		return 0, "", 0, "", false
	}
	m := stepRE.FindStringSubmatch(c.Name)
	if m == nil {
		return 0, "", 0, "", false
	}
	n, err = strconv.Atoi(m[2])
	if err != nil {
		return 0, "", 0, "", false
	}
	return ref, m[1], n, m[3], true
}

// sameLook: two controls render the same apart from ref and name.
func sameLook(a, b *Control) bool {
	return a.Role == b.Role && a.Checked == b.Checked && a.Expanded == b.Expanded && a.Selected == b.Selected &&
		a.Disabled == b.Disabled && a.Focused == b.Focused && a.InView == b.InView && a.Blocked == b.Blocked
}

func writeControl(sb *strings.Builder, c *Control) {
	sb.WriteString(c.Ref)
	sb.WriteByte(' ')
	sb.WriteString(c.Role)
	if c.Name != "" {
		fmt.Fprintf(sb, " %q", c.Name)
	}
	if c.Value != "" {
		fmt.Fprintf(sb, " = %q", c.Value)
	}
	writeStates(sb, c)
}

// writeStates writes a control's states and options after its name.
func writeStates(sb *strings.Builder, c *Control) {
	var st []string
	switch c.Checked {
	case "true":
		st = append(st, "checked")
	case "false":
		st = append(st, "unchecked")
	case "mixed":
		st = append(st, "mixed")
	}
	if c.Expanded == "true" {
		st = append(st, "expanded")
	} else if c.Expanded == "false" {
		st = append(st, "collapsed")
	}
	if c.Selected {
		st = append(st, "selected")
	}
	if c.Disabled {
		st = append(st, "disabled")
	}
	if c.Focused {
		st = append(st, "focused")
	}
	if !c.InView {
		st = append(st, "offscreen")
	}
	if c.Blocked {
		st = append(st, "blocked by the dialog")
	}
	if len(st) > 0 {
		sb.WriteString(" [")
		sb.WriteString(strings.Join(st, " "))
		sb.WriteByte(']')
	}
	if len(c.Options) > 0 {
		fmt.Fprintf(sb, " options: %s", strings.Join(c.Options, "|"))
	}
}
