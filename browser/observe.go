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
	// Query keeps controls whose accessible name, value or nearby text
	// (the text of its row, list item, card or label; see nearbyText in
	// js/text.js) contains it, case-insensitively. It searches every
	// candidate of the page, off-screen and inside scrollers included;
	// the open dialog's and the viewport's come first, then by how well
	// they match (the name itself, in the name, the value, nearby text).
	Query string `json:"query,omitempty"`
	// Within is a ref: only that element's subtree is observed (a dialog,
	// a card), its text excerpt included. A ref never handed out is
	// ErrUnknownRef; one whose element or document is gone, ErrStaleRef.
	Within string `json:"within,omitempty"`
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
	return fmt.Sprintf("l=%d r=%s q=%q w=%q a=%t t=%d", o.Limit, strings.Join(r, ","), o.Query, o.Within, o.All, o.TextMax)
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
	// Blocked marks a control behind an open modal that a person cannot
	// reach until it closes; only a query returns such controls.
	Blocked bool `json:"blocked,omitempty"`
	// Sensitive marks password, card, CVV and one-time-code fields; their
	// Value is always "***".
	Sensitive bool     `json:"sensitive,omitempty"`
	Options   []string `json:"options,omitempty"`
	Href      string   `json:"href,omitempty"`
	// NewTab marks a link that opens another tab or window (a target
	// attribute); its Href is then the whole resolved URL.
	NewTab bool `json:"newTab,omitempty"`
	// Form describes the form the control belongs to (its label, name,
	// id or action), for the safety gate: what a form submits is often
	// named there and not on its button.
	Form string `json:"form,omitempty"`
	// Box is x, y, width, height in viewport CSS pixels.
	Box [4]int `json:"box"`
}

// Observation is what a page looks like to an agent.
type Observation struct {
	Version int    `json:"version"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	Dialog  string `json:"dialog,omitempty"`
	// DialogRef is the open dialog's ref, for ObserveOptions.Within.
	DialogRef string `json:"dialogRef,omitempty"`
	// Blocked counts the controls behind an open modal (a modal dialog,
	// or a backdrop over the page, role or not): a person cannot reach
	// them until it closes, so the frontier leaves them out and a query
	// returns them last, marked.
	Blocked  int       `json:"blocked,omitempty"`
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
	// behind are refs already handed out of controls now blocked behind
	// the modal (at most 200), for a diff to tell from removed ones.
	behind []string
}

type frameObs struct {
	URL        string    `json:"url"`
	Title      string    `json:"title"`
	VW         float64   `json:"vw"`
	VH         float64   `json:"vh"`
	SX         float64   `json:"sx"`
	SY         float64   `json:"sy"`
	Dialog     string    `json:"dialog"`
	DialogRef  string    `json:"dialogRef"`
	Blocked    int       `json:"blocked"`
	Behind     []string  `json:"behind"`
	Candidates int       `json:"candidates"`
	Controls   []Control `json:"controls"`
	Headings   []string  `json:"headings"`
	Text       string    `json:"text"`
	TextCut    bool      `json:"textCut"`
	NextRef    int       `json:"nextRef"`
	WalkMs     float64   `json:"walkMs"`
	// Err is "gone" when the Within element no longer exists.
	Err string `json:"err"`
}

type frameBox struct {
	X, Y, W, H float64
	Visible    bool
	// Inside: the iframe lies inside the element ownerBox was asked about.
	Inside bool
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
	t.forgetOldDocuments(fs)
	m := &merge{obs: &Observation{doc: fs[0].LoaderID}, offsets: map[cdp.FrameID][2]float64{fs[0].ID: {0, 0}}}
	args := map[string]any{"limit": o.Limit, "roles": o.Roles, "query": o.Query, "all": o.All, "textMax": o.TextMax}
	if o.Within != "" {
		return t.observeWithin(ctx, m, fs, o, args)
	}
	for i, f := range fs {
		top := i == 0
		off, ok := t.frameOrigin(ctx, m, f, fs, top)
		if !ok {
			continue
		}
		fo, err := t.observeFrame(ctx, f, args, top)
		if err != nil {
			if top {
				return nil, err
			}
			m.obs.Unobserved++
			continue
		}
		m.addFrame(fo, top)
		if top && fo.DialogRef != "" {
			t.refs[fo.DialogRef] = refLoc{frame: f.ID, loader: f.LoaderID, top: fs[0].LoaderID}
		}
		t.addControls(m, fo, f, fs, off, top)
	}
	obs := m.ranked(o.Limit)
	t.version++
	obs.Version = t.version
	return obs, nil
}

// observeWithin observes the subtree of one ref, in the frame it lives in.
func (t *Tab) observeWithin(ctx context.Context, m *merge, fs []*cdp.Frame, o ObserveOptions, args map[string]any) (*Observation, error) {
	loc, ok := t.refs[o.Within]
	if !ok {
		return nil, fmt.Errorf("within %s: %w (refs come from an observation of this tab)", o.Within, ErrUnknownRef)
	}
	f := frameByID(fs, loc.frame)
	if f == nil || f.LoaderID != loc.loader {
		return nil, fmt.Errorf("within %s: %w", o.Within, ErrStaleRef)
	}
	top := f.ID == fs[0].ID
	off, err := t.frameOffset(ctx, f, fs)
	if err != nil {
		return nil, err
	}
	args["within"] = o.Within
	fo, err := t.observeFrame(ctx, f, args, true)
	if err != nil {
		return nil, err
	}
	if fo.Err != "" {
		return nil, fmt.Errorf("within %s: the element is no longer on the page: %w", o.Within, ErrStaleRef)
	}
	if !top {
		// The frame's own URL and title are not the page's.
		fo.URL, fo.Title = fs[0].URL+fs[0].URLFragment, t.Info().Title
		fo.VW, fo.VH = float64(t.b.opts.Width), float64(t.b.opts.Height)
	}
	m.addFrame(fo, true)
	t.addControls(m, fo, f, fs, off, top)
	t.framesWithin(ctx, m, f, fs, off, o)
	obs := m.ranked(o.Limit)
	t.version++
	obs.Version = t.version
	return obs, nil
}

// addControls merges frame f's controls (fo) into m at off, its origin in
// the top viewport, and remembers which document each ref was handed out
// in.
func (t *Tab) addControls(m *merge, fo *frameObs, f *cdp.Frame, fs []*cdp.Frame, off [2]float64, top bool) {
	for _, c := range fo.Controls {
		t.refs[c.Ref] = refLoc{frame: f.ID, loader: f.LoaderID, top: fs[0].LoaderID}
		m.addControl(c, off, top)
	}
}

// forgetOldDocuments drops, when the top document has changed, the refs
// and worlds of documents that are gone, keeping the refs of the document
// just before, so one used after a navigation still reads as stale.
func (t *Tab) forgetOldDocuments(fs []*cdp.Frame) {
	top := fs[0].LoaderID
	if top == t.topDoc {
		return
	}
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

// frameOrigin is where a frame's viewport lies in the top one. A frame
// that is hidden, empty or inside one not observed is skipped; one whose
// iframe could not be found counts as unobserved.
func (t *Tab) frameOrigin(ctx context.Context, m *merge, f *cdp.Frame, fs []*cdp.Frame, top bool) ([2]float64, bool) {
	if top {
		return m.offsets[f.ID], true
	}
	parentOff, ok := m.offsets[f.ParentID]
	if !ok {
		m.obs.Unobserved++
		return [2]float64{}, false
	}
	box, err := t.ownerBox(ctx, f, fs, "")
	if err != nil {
		m.obs.Unobserved++
		return [2]float64{}, false
	}
	if !box.Visible || box.W < 1 || box.H < 1 {
		return [2]float64{}, false
	}
	off := [2]float64{parentOff[0] + box.X, parentOff[1] + box.Y}
	m.offsets[f.ID] = off
	return off, true
}

// observeFrame runs the walker in one frame. Only the top frame gives the
// page's text.
func (t *Tab) observeFrame(ctx context.Context, f *cdp.Frame, args map[string]any, top bool) (*frameObs, error) {
	w, err := t.world(ctx, f)
	if err != nil {
		return nil, err
	}
	args["nextRef"] = t.nextRef
	if !top {
		args["textMax"] = 0
	}
	var fo frameObs
	if err := t.call(ctx, w, "observe", &fo, args); err != nil {
		return nil, err
	}
	t.nextRef = fo.NextRef
	return &fo, nil
}

// merge gathers the frames' controls into one observation.
type merge struct {
	obs     *Observation
	offsets map[cdp.FrameID][2]float64 // each observed frame's origin in the top viewport
	vw, vh  float64                    // the top viewport
	all     []placed
}

// placed is a control with its rank group: the open dialog's, then the
// viewport's, then the rest, then those blocked behind a modal.
type placed struct {
	c     Control
	group int
}

func (m *merge) addFrame(fo *frameObs, top bool) {
	obs := m.obs
	obs.Frames++
	obs.WalkMs += fo.WalkMs
	obs.Candidates += fo.Candidates
	if !top {
		return
	}
	m.vw, m.vh = fo.VW, fo.VH
	obs.URL, obs.Title, obs.Dialog, obs.DialogRef, obs.Blocked, obs.behind = fo.URL, fo.Title, fo.Dialog, fo.DialogRef, fo.Blocked, fo.Behind
	obs.Headings, obs.Text, obs.TextCut = fo.Headings, fo.Text, fo.TextCut
	obs.Viewport = [2]int{int(fo.VW), int(fo.VH)}
	obs.Scroll = [2]int{int(fo.SX), int(fo.SY)}
}

// addControl moves a frame's control into top-viewport coordinates.
func (m *merge) addControl(c Control, off [2]float64, top bool) {
	if !top {
		c.Box[0] += int(off[0])
		c.Box[1] += int(off[1])
		x, y, bw, bh := float64(c.Box[0]), float64(c.Box[1]), float64(c.Box[2]), float64(c.Box[3])
		c.InView = c.InView && x+bw > 0 && y+bh > 0 && x < m.vw && y < m.vh
	}
	g := 2
	switch {
	case c.Blocked:
		g = 3
	case c.InDialog:
		g = 0
	case c.InView:
		g = 1
	}
	m.all = append(m.all, placed{c, g})
}

// ranked cuts the controls, in group then walk order, to limit.
func (m *merge) ranked(limit int) *Observation {
	slices.SortStableFunc(m.all, func(a, b placed) int { return a.group - b.group })
	obs := m.obs
	for _, p := range m.all {
		if len(obs.Controls) == limit {
			break
		}
		obs.Controls = append(obs.Controls, p.c)
	}
	obs.Truncated = obs.Candidates > len(obs.Controls)
	return obs
}

// ownerBox finds the iframe element holding frame f, in its parent's
// world, and returns its content box in the parent's viewport.
func (t *Tab) ownerBox(ctx context.Context, f *cdp.Frame, fs []*cdp.Frame, within string) (frameBox, error) {
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
	arg, err := json.Marshal(within)
	if err != nil {
		return frameBox{}, err
	}
	res, err := cdp.Call(ctx, pw.sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function(w){ return __vroom.frameBox(this, w) }", ObjectID: obj.Object.ObjectID, ReturnByValue: new(true),
		Arguments: []*runtime.CallArgument{{Value: arg}},
	})
	t.release(ctx, pw.sess, obj.Object.ObjectID)
	if err != nil {
		return frameBox{}, err
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		return frameBox{}, fmt.Errorf("frame box: %s", exceptionText(res.ExceptionDetails))
	}
	var b frameBox
	if err := json.Unmarshal(res.Result.Value, &b); err != nil {
		return frameBox{}, err
	}
	return b, nil
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
	switch {
	case o.DialogRef != "":
		fmt.Fprintf(&sb, "dialog %s %q (its controls first)\n", o.DialogRef, o.Dialog)
	case o.Dialog != "":
		fmt.Fprintf(&sb, "dialog %q (its controls first)\n", o.Dialog)
	}
	if o.Blocked > 0 {
		fmt.Fprintf(&sb, "the page behind the dialog is blocked: %d controls there cannot be used until it is closed\n", o.Blocked)
	}
	if len(o.Headings) > 0 {
		sb.WriteString("headings: ")
		sb.WriteString(strings.Join(o.Headings, " | "))
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "controls %d of %d candidates", len(o.Controls), o.Candidates)
	// Controls blocked behind a modal are counted, not listed: the line
	// above says why, and no search would make them usable.
	if o.Truncated && o.Candidates-o.Blocked > len(o.Controls) {
		sb.WriteString(" (more exist: call observe with query or roles)")
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

// Brief renders part of a page observed Within (a layer over the target of
// a refused action): its controls one a line and its text, without the
// page's header lines, so it fits under an error.
func (o *Observation) Brief() string {
	var sb strings.Builder
	for i := range o.Controls {
		writeControl(&sb, &o.Controls[i])
		sb.WriteByte('\n')
	}
	if o.Truncated {
		fmt.Fprintf(&sb, "(and %d more in it)\n", o.Candidates-len(o.Controls))
	}
	if len(o.Headings) > 0 {
		fmt.Fprintf(&sb, "headings: %s\n", strings.Join(o.Headings, " | "))
	}
	if o.Text != "" {
		fmt.Fprintf(&sb, "text: %s\n", o.Text)
	}
	return strings.TrimSuffix(sb.String(), "\n")
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
