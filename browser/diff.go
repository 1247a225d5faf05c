package browser

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/cdp"
)

// Diff is what changed since a baseline observation.
type Diff struct {
	Since   int `json:"since"`
	Version int `json:"version"`
	// Full is set, with Reason, when no diff was possible.
	Full    *Observation `json:"full,omitempty"`
	Reason  string       `json:"reason,omitempty"`
	URL     string       `json:"url,omitempty"`
	Title   string       `json:"title,omitempty"`
	Dialog  *string      `json:"dialog,omitempty"`
	Added   []Control    `json:"added,omitempty"`
	Changed []Control    `json:"changed,omitempty"`
	Removed []string     `json:"removed,omitempty"`
	// Behind are controls of the baseline now blocked behind an open
	// modal: out of reach until it closes, not gone.
	Behind []string `json:"behind,omitempty"`
	// Text is the page prose that is new since the baseline (a message
	// that appeared, a result that changed), cut to maxDiffText; TextGone
	// is prose that went away with nothing in its place (an error message
	// cleared).
	Text     string `json:"text,omitempty"`
	TextGone string `json:"textGone,omitempty"`
	// TextInView marks a Text that is the whole text in view, because the
	// page scrolled since the baseline: what is on screen now replaces
	// what was, and TextAbove and TextBelow say how much lies outside it
	// (as Observation's).
	TextInView bool `json:"textInView,omitempty"`
	TextAbove  int  `json:"textAbove,omitempty"`
	TextBelow  int  `json:"textBelow,omitempty"`
	// Compared is how many controls the new view held, and Candidates how
	// many the page had, so an empty diff says how much it looked at.
	Compared   int  `json:"compared"`
	Candidates int  `json:"candidates"`
	Truncated  bool `json:"truncated"`
	// blurred are the refs of Changed whose only change is the focus
	// they lost: the text leaves them out when another control took it,
	// which that control's own line shows.
	blurred []string
}

// Empty reports whether nothing changed in the compared view.
func (d *Diff) Empty() bool {
	return d.Full == nil && d.URL == "" && d.Title == "" && d.Dialog == nil && d.Text == "" && d.TextGone == "" && len(d.Added)+len(d.Changed)+len(d.Removed)+len(d.Behind) == 0
}

// Changes observes the page and reports what changed since observation
// version since, taken with the same options. When that baseline is gone,
// was taken with other options or on another document, it returns the full
// observation in Diff.Full and says why.
func (t *Tab) Changes(ctx context.Context, since int, opts ObserveOptions) (*Diff, error) {
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("changes %s: %w", t.id, err)
	}
	defer cancel()
	t.op.Lock()
	defer t.op.Unlock()
	return t.changes(cctx, since, opts)
}

func (t *Tab) changes(ctx context.Context, since int, opts ObserveOptions) (*Diff, error) {
	o := opts.norm()
	obs, err := t.observe(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("changes %s: %w", t.id, t.fail(ctx, err))
	}
	base, reason := t.bases.get(since, o.key(), obs.doc)
	t.bases.put(o.key(), obs)
	d := &Diff{Since: since, Version: obs.Version, Compared: len(obs.Controls), Candidates: obs.Candidates, Truncated: obs.Truncated}
	if base == nil {
		d.Full, d.Reason = obs, reason
		return d, nil
	}
	return diffObs(d, base, obs), nil
}

func diffObs(d *Diff, base *baseline, obs *Observation) *Diff {
	if base.url != obs.URL {
		d.URL = obs.URL
	}
	if base.title != obs.Title {
		d.Title = obs.Title
	}
	if base.dialog != obs.Dialog {
		dl := obs.Dialog
		d.Dialog = &dl
	}
	seen := make(map[string]bool, len(obs.Controls))
	for _, c := range obs.Controls {
		seen[c.Ref] = true
		old, ok := base.controls[c.Ref]
		switch {
		case !ok:
			d.Added = append(d.Added, c)
		case !sameControl(old, c):
			d.Changed = append(d.Changed, c)
			if lost := old; lost.Focused && !c.Focused {
				if lost.Focused = false; sameControl(lost, c) {
					d.blurred = append(d.blurred, c.Ref)
				}
			}
		}
	}
	behind := make(map[string]bool, len(obs.behind))
	for _, ref := range obs.behind {
		behind[ref] = true
	}
	for _, ref := range base.order {
		switch {
		case seen[ref]:
		case behind[ref]:
			d.Behind = append(d.Behind, ref)
		default:
			d.Removed = append(d.Removed, ref)
		}
	}
	if base.scroll != obs.Scroll && base.text != obs.Text {
		// After a scroll the text is what is on screen.
		d.Text, d.TextInView, d.TextAbove, d.TextBelow = obs.Text, true, obs.TextAbove, obs.TextBelow
		return d
	}
	d.Text = newText(base.text, obs.Text)
	if d.Text == "" {
		d.TextGone = newText(obs.Text, base.text)
	}
	return d
}

// maxDiffText bounds the new prose a diff carries.
const maxDiffText = 300

// newText returns the words of now that differ from was: what lies between
// their common leading and trailing words. Page prose mostly changes in one
// place (a message appears, a total updates), which this finds without a
// general diff.
func newText(was, now string) string {
	if was == now {
		return ""
	}
	a, b := strings.Fields(was), strings.Fields(now)
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	j := 0
	for j < len(a)-i && j < len(b)-i && a[len(a)-1-j] == b[len(b)-1-j] {
		j++
	}
	mid := strings.Join(b[i:len(b)-j], " ")
	if len(mid) > maxDiffText {
		mid = clipText(mid, maxDiffText)
	}
	return mid
}

func sameControl(a, b Control) bool {
	return a.Role == b.Role && a.Name == b.Name && a.Value == b.Value && a.Checked == b.Checked &&
		a.Expanded == b.Expanded && a.Selected == b.Selected && a.Disabled == b.Disabled &&
		a.Focused == b.Focused && a.InDialog == b.InDialog && slices.Equal(a.Options, b.Options)
}

// writeHeader writes the diff's first line: the counts that are not
// zero, and how much of the page was compared when not all of it was (or
// when nothing changed, so the model knows how far it looked).
func (d *Diff) writeHeader(sb *strings.Builder) {
	sb.WriteString("changes:")
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{len(d.Added), "added"}, {d.shownChanged(), "changed"}, {len(d.Removed), "removed"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	if len(parts) > 0 {
		sb.WriteString(" " + strings.Join(parts, ", "))
	}
	if d.Empty() {
		sb.WriteString(" nothing changed in this view")
	}
	if d.Empty() || d.Compared < d.Candidates {
		fmt.Fprintf(sb, "; compared %d of %d candidates", d.Compared, d.Candidates)
	}
	if d.Empty() && d.Truncated {
		sb.WriteString(" (the page has more; widen the query to look elsewhere)")
	}
	sb.WriteByte('\n')
}

// shownChanged counts the changed controls the text lists.
func (d *Diff) shownChanged() int {
	if d.focusMoved() {
		return len(d.Changed) - len(d.blurred)
	}
	return len(d.Changed)
}

// focusMoved reports whether a control the diff lists took the focus.
func (d *Diff) focusMoved() bool {
	for _, cs := range [][]Control{d.Added, d.Changed} {
		for _, c := range cs {
			if c.Focused {
				return true
			}
		}
	}
	return false
}

// Compact is the text form of a diff; a full observation is rendered whole.
func (d *Diff) Compact() string {
	if d.Full != nil {
		return fmt.Sprintf("full observation (%s)\n%s", d.Reason, d.Full.Compact())
	}
	var sb strings.Builder
	d.writeHeader(&sb)
	if d.URL != "" {
		fmt.Fprintf(&sb, "url %s\n", d.URL)
	}
	if d.Title != "" {
		fmt.Fprintf(&sb, "title %q\n", d.Title)
	}
	if d.Dialog != nil {
		if *d.Dialog == "" {
			sb.WriteString("dialog closed\n")
		} else {
			fmt.Fprintf(&sb, "dialog %q opened\n", *d.Dialog)
		}
	}
	writeControls(&sb, "+ ", d.Added)
	quiet := d.focusMoved()
	for i := range d.Changed {
		if quiet && slices.Contains(d.blurred, d.Changed[i].Ref) {
			continue
		}
		sb.WriteString("~ ")
		writeControl(&sb, &d.Changed[i])
		sb.WriteByte('\n')
	}
	if len(d.Removed) > 0 {
		fmt.Fprintf(&sb, "- %s\n", strings.Join(d.Removed, " "))
	}
	if len(d.Behind) > 0 {
		fmt.Fprintf(&sb, "behind the dialog until it closes (not gone): %s\n", strings.Join(d.Behind, " "))
	}
	switch {
	case d.TextInView:
		fmt.Fprintf(&sb, "text in view now: %s\n", d.Text)
		if h := moreText(d.TextAbove, d.TextBelow); h != "" {
			sb.WriteString(h + "\n")
		}
	case d.Text != "":
		fmt.Fprintf(&sb, "text now: %s\n", d.Text)
	}
	if d.TextGone != "" {
		fmt.Fprintf(&sb, "text gone: %s\n", d.TextGone)
	}
	return sb.String()
}

// Baseline limits: at least this many per document, within this budget.
const (
	maxBaselines     = 8
	baselineBudget   = 2 << 20
	baselineMaxTotal = 32
)

type baseline struct {
	version  int
	key      string
	doc      cdp.LoaderID
	url      string
	title    string
	dialog   string
	text     string
	scroll   [2]int
	controls map[string]Control
	order    []string
	size     int
}

type baselines struct {
	list  []*baseline
	bytes int
}

func (bs *baselines) put(key string, o *Observation) {
	b := &baseline{version: o.Version, key: key, doc: o.doc, url: o.URL, title: o.Title, dialog: o.Dialog, text: o.Text, scroll: o.Scroll,
		controls: make(map[string]Control, len(o.Controls)), order: make([]string, 0, len(o.Controls)), size: len(o.Text)}
	for _, c := range o.Controls {
		b.controls[c.Ref] = c
		b.order = append(b.order, c.Ref)
		b.size += 96 + len(c.Name) + len(c.Value) + len(c.Href) + len(c.Ref) + len(c.Role)
	}
	bs.list = append(bs.list, b)
	bs.bytes += b.size
	// Evict the oldest: first other documents' baselines, then this
	// document's beyond the eight most recent, then anything over budget.
	perDoc := 0
	for i := len(bs.list) - 1; i >= 0; i-- {
		x := bs.list[i]
		drop := false
		if x.doc == o.doc {
			perDoc++
			drop = perDoc > maxBaselines
		} else {
			drop = len(bs.list) > baselineMaxTotal
		}
		if drop {
			bs.bytes -= x.size
			bs.list = slices.Delete(bs.list, i, i+1)
		}
	}
	for bs.bytes > baselineBudget && len(bs.list) > 1 {
		bs.bytes -= bs.list[0].size
		bs.list = bs.list[1:]
	}
}

func (bs *baselines) get(version int, key string, doc cdp.LoaderID) (*baseline, string) {
	var kept []string
	for _, b := range bs.list {
		if b.version == version {
			switch {
			case b.doc != doc:
				return nil, fmt.Sprintf("the page navigated since v%d", version)
			case b.key != key:
				return nil, fmt.Sprintf("v%d was taken with other options (%s)", version, b.key)
			}
			return b, ""
		}
		if b.doc == doc {
			kept = append(kept, fmt.Sprintf("v%d", b.version))
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Sprintf("baseline v%d is gone", version)
	}
	return nil, fmt.Sprintf("baseline v%d is gone (kept: %s)", version, strings.Join(kept, " "))
}
