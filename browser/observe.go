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
	Sensitive bool `json:"sensitive,omitempty"`
	// Near marks a control given because it stands by a passage of text
	// that matched the query (Observation.Passages), not because it
	// matched itself.
	Near    bool     `json:"near,omitempty"`
	Options []string `json:"options,omitempty"`
	Href    string   `json:"href,omitempty"`
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
	Blocked  int      `json:"blocked,omitempty"`
	Headings []string `json:"headings,omitempty"`
	// Text is the page's text in view, frames' included, at most
	// ObserveOptions.TextMax characters (js/read.js says how it is read);
	// a look Within one element has that element's text. TextCut says
	// the view held more.
	Text    string `json:"text,omitempty"`
	TextCut bool   `json:"textTruncated,omitempty"`
	// TextAbove and TextBelow are about how many characters of the page's
	// text lie above the view and below (or beside) it, or past the cut:
	// what read_page adds.
	TextAbove int `json:"textAbove,omitempty"`
	TextBelow int `json:"textBelow,omitempty"`
	// Query is the query the observation answers, and Passages the
	// page's text that matches it (at most five, frames' included).
	Query    string    `json:"query,omitempty"`
	Passages []Passage `json:"passages,omitempty"`
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

// Passage is a piece of the page's text that matches a query: its
// sentence, or its row or card whole when that is short, and the refs of
// the controls inside it (at most three; those not matching the query
// themselves are in Observation.Controls marked Near).
type Passage struct {
	Text string   `json:"text"`
	Refs []string `json:"refs,omitempty"`
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
	Above      int       `json:"above"`
	Below      int       `json:"below"`
	Near       []Control `json:"near"`
	Passages   []Passage `json:"passages"`
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
	m := newMerge(fs[0])
	m.obs.Query = o.Query
	if o.Within == "" && o.Query == "" {
		t.lookOpts, t.looks = o, true
	}
	args := observeArgs(o)
	if o.Within != "" {
		return t.observeWithin(ctx, m, fs, o, args)
	}
	// Where every frame lies comes first: finding its iframe also names it
	// for its parent's reader, which marks where the frame's text goes.
	offs := make([]*[2]float64, len(fs))
	for i, f := range fs {
		if off, ok := t.frameOrigin(ctx, m, f, fs, i == 0); ok {
			offs[i] = &off
		}
	}
	for i, f := range fs {
		if offs[i] == nil {
			continue
		}
		top := i == 0
		args["textMax"], args["view"] = o.TextMax, nil
		if !top {
			// A frame's text is what of it shows in the tab's view.
			v, ok := m.frameView(f)
			args["view"] = v
			if !ok {
				args["textMax"] = 0
			}
		}
		var fo *frameObs
		if top && o.Within == "" {
			fo = t.takeLook(f.LoaderID, o.key())
		}
		if fo == nil {
			fo, err = t.observeFrame(ctx, f, args)
		}
		if err != nil {
			if top {
				return nil, err
			}
			m.obs.Unobserved++
			continue
		}
		m.addFrame(fo, top)
		m.addText(f.ID, fo, top)
		if top && fo.DialogRef != "" {
			t.refs[fo.DialogRef] = refLoc{frame: f.ID, loader: f.LoaderID, top: fs[0].LoaderID}
		}
		t.addControls(m, fo, f, fs, *offs[i], top)
	}
	obs := m.ranked(o.Limit)
	m.joinText(fs[0].ID, o.TextMax)
	t.version++
	obs.Version = t.version
	return obs, nil
}

// observeArgs are the walker's arguments for a look with options o.
func observeArgs(o ObserveOptions) map[string]any {
	return map[string]any{"limit": o.Limit, "roles": o.Roles, "query": o.Query, "all": o.All, "textMax": o.TextMax}
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
	inner := t.framesWithin(ctx, f, fs, o.Within)
	fo, err := t.observeFrame(ctx, f, args)
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
	m.texts[f.ID] = frameText{text: fo.Text, cut: fo.TextCut}
	t.addControls(m, fo, f, fs, off, top)
	t.observeLayerFrames(ctx, m, inner, fs, off, o)
	m.joinText(f.ID, o.TextMax)
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
	for _, c := range fo.Near {
		t.refs[c.Ref] = refLoc{frame: f.ID, loader: f.LoaderID, top: fs[0].LoaderID}
		c.Near = true
		m.addNear(c, off, top)
	}
	if room := maxPassages - len(m.obs.Passages); room > 0 {
		m.obs.Passages = append(m.obs.Passages, fo.Passages[:min(room, len(fo.Passages))]...)
	}
}

// maxPassages bounds the passages of a query's answer, over all frames.
const maxPassages = 5

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
	m.boxes[f.ID] = box
	return off, true
}

// observeFrame runs the walker in one frame with args.
func (t *Tab) observeFrame(ctx context.Context, f *cdp.Frame, args map[string]any) (*frameObs, error) {
	w, err := t.world(ctx, f)
	if err != nil {
		return nil, err
	}
	args["nextRef"] = t.nextRef
	var fo frameObs
	if err := t.call(ctx, w, "observe", &fo, args); err != nil {
		return nil, err
	}
	t.nextRef = fo.NextRef
	return &fo, nil
}

// merge gathers the frames' controls and texts into one observation.
type merge struct {
	obs     *Observation
	offsets map[cdp.FrameID][2]float64 // each observed frame's origin in the top viewport
	boxes   map[cdp.FrameID]frameBox   // each child frame's iframe, in its parent's viewport
	views   map[cdp.FrameID][4]float64 // the part of each frame's viewport in the tab's view
	texts   map[cdp.FrameID]frameText
	vw, vh  float64 // the top viewport
	all     []placed
	near    []Control
}

func newMerge(top *cdp.Frame) *merge {
	return &merge{
		obs: &Observation{doc: top.LoaderID}, offsets: map[cdp.FrameID][2]float64{top.ID: {0, 0}},
		boxes: map[cdp.FrameID]frameBox{}, views: map[cdp.FrameID][4]float64{}, texts: map[cdp.FrameID]frameText{},
	}
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
	obs.Headings = fo.Headings
	obs.Viewport = [2]int{int(fo.VW), int(fo.VH)}
	obs.Scroll = [2]int{int(fo.SX), int(fo.SY)}
}

// addControl adds a frame's control to the ranking, in top-viewport
// coordinates.
func (m *merge) addControl(c Control, off [2]float64, top bool) {
	c = m.place(c, off, top)
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

// addNear adds a control given for being near a matching passage.
func (m *merge) addNear(c Control, off [2]float64, top bool) {
	m.near = append(m.near, m.place(c, off, top))
}

// place moves a frame's control into top-viewport coordinates.
func (m *merge) place(c Control, off [2]float64, top bool) Control {
	if !top {
		c.Box[0] += int(off[0])
		c.Box[1] += int(off[1])
		x, y, bw, bh := float64(c.Box[0]), float64(c.Box[1]), float64(c.Box[2]), float64(c.Box[3])
		c.InView = c.InView && x+bw > 0 && y+bh > 0 && x < m.vw && y < m.vh
	}
	return c
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
	obs.Controls = append(obs.Controls, m.near...)
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
	id, err := json.Marshal(string(f.ID))
	if err != nil {
		return frameBox{}, err
	}
	if err := boot(ctx, pw); err != nil {
		return frameBox{}, err
	}
	res, err := cdp.Call(ctx, pw.sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function(w, id){ return __vroom.frameBox(this, w, id) }", ObjectID: obj.Object.ObjectID, ReturnByValue: new(true),
		Arguments: []*runtime.CallArgument{{Value: arg}, {Value: id}},
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
