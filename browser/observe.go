package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
)

// ObserveOptions selects the view of a page. The zero value is the default
// frontier: at most 40 controls, the open dialog's first, then the viewport's.
type ObserveOptions struct {
	// Limit caps the controls returned (default 40).
	Limit int `json:"limit,omitempty"`
	// Roles keeps only controls with these roles; other elements are
	// rejected before their names or geometry are computed.
	Roles []string `json:"roles,omitempty"`
	// Query keeps controls whose accessible name contains it.
	Query string `json:"query,omitempty"`
	// All returns every candidate (up to Limit, if set) instead of the
	// ranked frontier.
	All bool `json:"all,omitempty"`
	// TextMax bounds the text excerpt in characters (default 600; negative
	// for none).
	TextMax int `json:"text_max,omitempty"`
}

func (o ObserveOptions) norm() ObserveOptions {
	if o.Limit <= 0 {
		if o.All {
			o.Limit = 5000
		} else {
			o.Limit = 40
		}
	}
	if o.TextMax == 0 {
		o.TextMax = 600
	}
	if o.TextMax < 0 {
		o.TextMax = -1
	}
	return o
}

func (o ObserveOptions) key() string {
	r := slices.Clone(o.Roles)
	slices.Sort(r)
	return fmt.Sprintf("l=%d r=%s q=%q a=%t t=%d", o.Limit, strings.Join(r, ","), o.Query, o.All, o.TextMax)
}

// Control is one actionable element of the page.
type Control struct {
	Ref   string `json:"ref"`
	Role  string `json:"role"`
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
	// Checked is "true", "false" or "mixed" for checkable controls.
	Checked  string `json:"checked,omitempty"`
	Expanded string `json:"expanded,omitempty"`
	Selected bool   `json:"selected,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
	Focused  bool   `json:"focused,omitempty"`
	// InView reports whether the control intersects the viewport.
	InView   bool `json:"inView"`
	InDialog bool `json:"inDialog,omitempty"`
	// Sensitive marks password, card, CVV and one-time-code fields; their
	// Value is always "***".
	Sensitive bool     `json:"sensitive,omitempty"`
	Options   []string `json:"options,omitempty"`
	Href      string   `json:"href,omitempty"`
	// Form describes the form the control belongs to (its label, name,
	// id or action), for the safety gate: what a form submits is often
	// named there and not on its button.
	Form string `json:"form,omitempty"`
	// Box is x, y, width, height in viewport CSS pixels.
	Box [4]int `json:"box"`
}

// Observation is what a page looks like to an agent.
type Observation struct {
	Version  int       `json:"version"`
	URL      string    `json:"url"`
	Title    string    `json:"title"`
	Dialog   string    `json:"dialog,omitempty"`
	Headings []string  `json:"headings,omitempty"`
	Text     string    `json:"text,omitempty"`
	TextCut  bool      `json:"textTruncated,omitempty"`
	Controls []Control `json:"controls"`
	// Candidates counts every control that matched before the cut, so a
	// short list is never mistaken for the whole page.
	Candidates int    `json:"candidates"`
	Truncated  bool   `json:"truncated"`
	Viewport   [2]int `json:"viewport"`
	Scroll     [2]int `json:"scroll"`
	// Frames counts the documents walked; Unobserved those that could not
	// be (cross-process frames of a remote browser).
	Frames     int `json:"frames"`
	Unobserved int `json:"unobserved,omitempty"`
	// WalkMs is the time spent in the page: the walk, ranking, names and
	// text excerpt, summed over frames.
	WalkMs float64 `json:"walkMs"`

	doc cdp.LoaderID
}

type frameObs struct {
	URL        string    `json:"url"`
	Title      string    `json:"title"`
	VW         float64   `json:"vw"`
	VH         float64   `json:"vh"`
	SX         float64   `json:"sx"`
	SY         float64   `json:"sy"`
	Dialog     string    `json:"dialog"`
	Candidates int       `json:"candidates"`
	Controls   []Control `json:"controls"`
	Headings   []string  `json:"headings"`
	Text       string    `json:"text"`
	TextCut    bool      `json:"textCut"`
	NextRef    int       `json:"nextRef"`
	WalkMs     float64   `json:"walkMs"`
}

type frameBox struct {
	X, Y, W, H float64
	Visible    bool
}

// Observe returns the page's controls and context.
func (t *Tab) Observe(ctx context.Context, opts ObserveOptions) (*Observation, error) {
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("observe %s: %w", t.id, err)
	}
	defer cancel()
	t.op.Lock()
	defer t.op.Unlock()
	obs, err := t.observe(cctx, opts.norm())
	if err != nil {
		return nil, fmt.Errorf("observe %s: %w", t.id, t.fail(cctx, err))
	}
	t.bases.put(opts.norm().key(), obs)
	return obs, nil
}

// observe walks every frame and merges their controls. Caller holds t.op.
func (t *Tab) observe(ctx context.Context, o ObserveOptions) (*Observation, error) {
	fs, err := t.frames(ctx)
	if err != nil {
		return nil, err
	}
	obs := &Observation{doc: fs[0].LoaderID}
	if top := fs[0].LoaderID; top != t.topDoc {
		t.prevDoc, t.topDoc = t.topDoc, top
		live := map[cdp.LoaderID]bool{}
		for _, f := range fs {
			live[f.LoaderID] = true
		}
		for ref, loc := range t.refs {
			if !live[loc.loader] && loc.top != t.prevDoc {
				delete(t.refs, ref)
			}
		}
		for id, w := range t.worlds {
			if !live[w.loader] {
				delete(t.worlds, id)
			}
		}
	}
	type placed struct {
		c     Control
		group int
		order int
	}
	var all []placed
	offsets := map[cdp.FrameID][2]float64{fs[0].ID: {0, 0}}
	var vw, vh float64
	args := map[string]any{"limit": o.Limit, "roles": o.Roles, "query": o.Query, "all": o.All, "textMax": o.TextMax}
	for i, f := range fs {
		off, ok := offsets[f.ID]
		if i > 0 {
			parentOff, pok := offsets[f.ParentID]
			if !pok {
				obs.Unobserved++
				continue
			}
			box, err := t.ownerBox(ctx, f, fs)
			if err != nil || !box.Visible || box.W < 1 || box.H < 1 {
				if err != nil {
					obs.Unobserved++
				}
				continue
			}
			off = [2]float64{parentOff[0] + box.X, parentOff[1] + box.Y}
			offsets[f.ID] = off
			ok = true
		}
		if !ok {
			continue
		}
		w, err := t.world(ctx, f)
		if err != nil {
			if i == 0 {
				return nil, err
			}
			obs.Unobserved++
			continue
		}
		args["nextRef"] = t.nextRef
		if i > 0 {
			args["textMax"] = 0
		}
		var fo frameObs
		if err := t.call(ctx, w, "observe", &fo, args); err != nil {
			if i == 0 {
				return nil, err
			}
			obs.Unobserved++
			continue
		}
		t.nextRef = fo.NextRef
		obs.Frames++
		obs.WalkMs += fo.WalkMs
		obs.Candidates += fo.Candidates
		if i == 0 {
			vw, vh = fo.VW, fo.VH
			obs.URL, obs.Title, obs.Dialog = fo.URL, fo.Title, fo.Dialog
			obs.Headings, obs.Text, obs.TextCut = fo.Headings, fo.Text, fo.TextCut
			obs.Viewport = [2]int{int(fo.VW), int(fo.VH)}
			obs.Scroll = [2]int{int(fo.SX), int(fo.SY)}
		}
		for _, c := range fo.Controls {
			t.refs[c.Ref] = refLoc{frame: f.ID, loader: f.LoaderID, top: fs[0].LoaderID}
			if i > 0 {
				c.Box[0] += int(off[0])
				c.Box[1] += int(off[1])
				x, y, bw, bh := float64(c.Box[0]), float64(c.Box[1]), float64(c.Box[2]), float64(c.Box[3])
				c.InView = c.InView && x+bw > 0 && y+bh > 0 && x < vw && y < vh
			}
			g := 2
			if c.InDialog {
				g = 0
			} else if c.InView {
				g = 1
			}
			all = append(all, placed{c, g, len(all)})
		}
	}
	slices.SortStableFunc(all, func(a, b placed) int { return a.group - b.group })
	for _, p := range all {
		if len(obs.Controls) == o.Limit {
			break
		}
		obs.Controls = append(obs.Controls, p.c)
	}
	obs.Truncated = obs.Candidates > len(obs.Controls)
	t.version++
	obs.Version = t.version
	return obs, nil
}

// ownerBox finds the iframe element holding frame f, in its parent's
// world, and returns its content box in the parent's viewport.
func (t *Tab) ownerBox(ctx context.Context, f *cdp.Frame, fs []*cdp.Frame) (frameBox, error) {
	var parent *cdp.Frame
	for _, p := range fs {
		if p.ID == f.ParentID {
			parent = p
		}
	}
	if parent == nil {
		return frameBox{}, fmt.Errorf("frame %s: no parent", f.ID)
	}
	pw, err := t.world(ctx, parent)
	if err != nil {
		return frameBox{}, err
	}
	// The iframe element lives in the parent's document and session.
	owner, err := cdp.Call(ctx, pw.sess, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: f.ID})
	if err != nil {
		return frameBox{}, err
	}
	obj, err := cdp.Call(ctx, pw.sess, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: owner.BackendNodeID, ExecutionContextID: pw.ctxID, ObjectGroup: "vroom"})
	if err != nil || obj.Object == nil {
		return frameBox{}, fmt.Errorf("frame owner: %w", err)
	}
	res, err := cdp.Call(ctx, pw.sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function(){ return __vroom.frameBox(this) }", ObjectID: obj.Object.ObjectID, ReturnByValue: new(true),
	})
	t.release(ctx, pw.sess, obj.Object.ObjectID)
	if err != nil {
		return frameBox{}, err
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		return frameBox{}, fmt.Errorf("frame box: %s", exceptionText(res.ExceptionDetails))
	}
	var b struct {
		X, Y, W, H float64
		Visible    bool
	}
	if err := json.Unmarshal(res.Result.Value, &b); err != nil {
		return frameBox{}, err
	}
	return frameBox(b), nil
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return "no result"
	}
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Exception.Description
	}
	return d.Text
}

// Compact is the one-line-per-control text form for a model.
func (o *Observation) Compact() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "page v%d %q %s\n", o.Version, clipText(o.Title, 80), o.URL)
	if o.Dialog != "" {
		fmt.Fprintf(&sb, "dialog %q (its controls first)\n", o.Dialog)
	}
	if len(o.Headings) > 0 {
		sb.WriteString("headings: ")
		sb.WriteString(strings.Join(o.Headings, " | "))
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "controls %d of %d candidates", len(o.Controls), o.Candidates)
	if o.Truncated {
		sb.WriteString(" (more exist: scroll, or narrow with query/roles)")
	}
	if o.Unobserved > 0 {
		fmt.Fprintf(&sb, "; %d frames not observed", o.Unobserved)
	}
	sb.WriteByte('\n')
	outside := false
	for i := range o.Controls {
		c := o.Controls[i]
		// Controls outside the viewport come last, under one header,
		// instead of a flag on every line.
		if !c.InView && !c.InDialog {
			if !outside {
				sb.WriteString("outside the viewport:\n")
				outside = true
			}
			c.InView = true
		}
		writeControl(&sb, &c)
		sb.WriteByte('\n')
	}
	if o.Text != "" {
		fmt.Fprintf(&sb, "text: %s\n", o.Text)
	}
	return sb.String()
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
	if len(st) > 0 {
		sb.WriteString(" [")
		sb.WriteString(strings.Join(st, " "))
		sb.WriteByte(']')
	}
	if len(c.Options) > 0 {
		fmt.Fprintf(sb, " options: %s", strings.Join(c.Options, "|"))
	}
}

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
	// Text is the page prose that is new since the baseline (a message
	// that appeared, a result that changed), cut to maxDiffText; TextGone
	// is prose that went away with nothing in its place (an error message
	// cleared).
	Text     string `json:"text,omitempty"`
	TextGone string `json:"textGone,omitempty"`
	// Compared is how many controls the new view held, and Candidates how
	// many the page had, so an empty diff says how much it looked at.
	Compared   int  `json:"compared"`
	Candidates int  `json:"candidates"`
	Truncated  bool `json:"truncated"`
}

// Empty reports whether nothing changed in the compared view.
func (d *Diff) Empty() bool {
	return d.Full == nil && d.URL == "" && d.Title == "" && d.Dialog == nil && d.Text == "" && d.TextGone == "" && len(d.Added)+len(d.Changed)+len(d.Removed) == 0
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
		}
	}
	for _, ref := range base.order {
		if !seen[ref] {
			d.Removed = append(d.Removed, ref)
		}
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

// Compact is the text form of a diff; a full observation is rendered whole.
func (d *Diff) Compact() string {
	if d.Full != nil {
		return fmt.Sprintf("full observation (%s)\n%s", d.Reason, d.Full.Compact())
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "changes v%d→v%d: %d added, %d changed, %d removed; compared %d of %d candidates",
		d.Since, d.Version, len(d.Added), len(d.Changed), len(d.Removed), d.Compared, d.Candidates)
	if d.Empty() {
		sb.WriteString(" — nothing changed in this view")
		if d.Truncated {
			sb.WriteString(" (the page has more; widen the query to look elsewhere)")
		}
	}
	sb.WriteByte('\n')
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
	for i := range d.Added {
		sb.WriteString("+ ")
		writeControl(&sb, &d.Added[i])
		sb.WriteByte('\n')
	}
	for i := range d.Changed {
		sb.WriteString("~ ")
		writeControl(&sb, &d.Changed[i])
		sb.WriteByte('\n')
	}
	if len(d.Removed) > 0 {
		fmt.Fprintf(&sb, "- %s\n", strings.Join(d.Removed, " "))
	}
	if d.Text != "" {
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
	controls map[string]Control
	order    []string
	size     int
}

type baselines struct {
	list  []*baseline
	bytes int
}

func (bs *baselines) put(key string, o *Observation) {
	b := &baseline{version: o.Version, key: key, doc: o.doc, url: o.URL, title: o.Title, dialog: o.Dialog, text: o.Text,
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
