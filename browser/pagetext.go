package browser

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
)

// The page's words: read_page's whole text (ReadText), and the frames'
// texts joined into one, each frame's where its iframe stands. The walker
// reads each document (js/read.js); a frame is read in its own world, an
// out-of-process one through its own session, and its parent's text
// holds a marker line where it goes.

// frameMark brackets a frame's id on the marker line the walker leaves
// where an iframe stands (js/read.js strips the character from page text).
const frameMark = "\x01"

// defaultReadMax bounds ReadText: about thirty thousand words.
const defaultReadMax = 200000

// ReadOptions bounds a reading of the page (Tab.ReadText).
type ReadOptions struct {
	// Max bounds the text in characters (default 200,000); past it the
	// text is cut and PageText.Cut says so.
	Max int `json:"max,omitempty"`
}

// PageText is a page's readable text.
type PageText struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	// Text is the page as a person reads it, frames' text in their place:
	// a line per heading (# to ######), paragraph, list item (- or 1.)
	// and table row (cells between |), the words of links and buttons in
	// place. Hidden text is left out (ARCHITECTURE.md, "Hidden text is not
	// the page"), as are form fields' values.
	Text string `json:"text"`
	Cut  bool   `json:"cut,omitempty"`
	// Frames counts the documents read; Unread those that could not be.
	Frames int `json:"frames"`
	Unread int `json:"unread,omitempty"`
}

// ReadText returns the page's whole readable text, every frame's
// included (an iframe hidden or too small to see is not read).
func (t *Tab) ReadText(ctx context.Context, opts ReadOptions) (*PageText, error) {
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.id, err)
	}
	defer cancel()
	t.op.Lock()
	defer t.op.Unlock()
	pt, err := t.readText(cctx, opts)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.id, t.fail(cctx, err))
	}
	return pt, nil
}

func (t *Tab) readText(ctx context.Context, opts ReadOptions) (*PageText, error) {
	limit := opts.Max
	if limit <= 0 {
		limit = defaultReadMax
	}
	fs, err := t.frames(ctx)
	if err != nil {
		return nil, err
	}
	t.forgetOldDocuments(fs)
	pt := &PageText{}
	// Finding each iframe names it for its parent's reader; a frame whose
	// iframe does not show is not read, nor what it holds.
	shown := map[cdp.FrameID]bool{fs[0].ID: true}
	for _, f := range fs[1:] {
		if !shown[f.ParentID] {
			continue
		}
		box, err := t.ownerBox(ctx, f, fs, "")
		if err != nil {
			pt.Unread++
			continue
		}
		shown[f.ID] = box.Visible && box.W >= 2 && box.H >= 2
	}
	texts := map[cdp.FrameID]string{}
	for i, f := range fs {
		if !shown[f.ID] {
			continue
		}
		var r struct {
			URL, Title, Text string
			Cut              bool
		}
		w, err := t.world(ctx, f)
		if err == nil {
			err = t.call(ctx, w, "read", &r, map[string]any{"max": limit})
		}
		if err != nil {
			if i == 0 {
				return nil, err
			}
			pt.Unread++
			continue
		}
		if i == 0 {
			pt.URL, pt.Title = r.URL, r.Title
		}
		texts[f.ID] = r.Text
		pt.Frames++
		pt.Cut = pt.Cut || r.Cut
	}
	text := spliceFrames(texts, fs[0].ID, map[cdp.FrameID]bool{}, 0)
	var dropped int
	text, dropped = clipChars(text, limit)
	pt.Text, pt.Cut = text, pt.Cut || dropped > 0
	return pt, nil
}

// spliceFrames is frame id's text with each marker line replaced by that
// frame's own text, in turn spliced. A marker of a frame not read is
// dropped; a frame is placed once.
func spliceFrames(texts map[cdp.FrameID]string, id cdp.FrameID, used map[cdp.FrameID]bool, depth int) string {
	used[id] = true
	s := texts[id]
	if !strings.Contains(s, frameMark) {
		return s
	}
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	for _, ln := range lines {
		if len(ln) > 2 && strings.HasPrefix(ln, frameMark) && strings.HasSuffix(ln, frameMark) {
			child := cdp.FrameID(ln[1 : len(ln)-1])
			if _, ok := texts[child]; ok && !used[child] && depth < 8 {
				if ct := spliceFrames(texts, child, used, depth+1); ct != "" {
					out = append(out, ct)
				}
			}
			continue
		}
		out = append(out, ln)
	}
	return strings.Join(out, "\n")
}

// clipChars cuts s to at most n characters, the last one "…", and says
// how many it dropped.
func clipChars(s string, n int) (string, int) {
	c := utf8.RuneCountInString(s)
	if c <= n || n <= 0 {
		return s, 0
	}
	i, k := 0, 0
	for ; k < n-1; k++ {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i] + "…", c - (n - 1)
}

// frameText is one frame's text in view and how much lies outside it.
type frameText struct {
	text         string
	above, below int
	cut          bool
}

// addText keeps frame id's text; the top frame's view is its viewport.
func (m *merge) addText(id cdp.FrameID, fo *frameObs, top bool) {
	if top {
		m.views[id] = [4]float64{0, 0, fo.VW, fo.VH}
	}
	m.texts[id] = frameText{text: fo.Text, above: fo.Above, below: fo.Below, cut: fo.TextCut}
}

// frameView is the part of frame f's viewport inside the tab's view, in
// f's own coordinates, and whether any of it is.
func (m *merge) frameView(f *cdp.Frame) ([4]float64, bool) {
	pv, ok := m.views[f.ParentID]
	box, ok2 := m.boxes[f.ID]
	if !ok || !ok2 {
		return [4]float64{}, false
	}
	v := [4]float64{
		max(pv[0], box.X) - box.X, max(pv[1], box.Y) - box.Y,
		min(pv[2], box.X+box.W) - box.X, min(pv[3], box.Y+box.H) - box.Y,
	}
	m.views[f.ID] = v
	return v, v[2] > v[0] && v[3] > v[1]
}

// joinText sets the observation's text: the frames' texts spliced, cut
// to limit characters, with how much lies outside the view.
func (m *merge) joinText(top cdp.FrameID, limit int) {
	if limit <= 0 {
		return
	}
	texts := make(map[cdp.FrameID]string, len(m.texts))
	for id, ft := range m.texts {
		texts[id] = ft.text
	}
	used := map[cdp.FrameID]bool{}
	text := spliceFrames(texts, top, used, 0)
	obs := m.obs
	for id := range used {
		ft := m.texts[id]
		obs.TextAbove += ft.above
		obs.TextBelow += ft.below
		obs.TextCut = obs.TextCut || ft.cut
	}
	text, dropped := clipChars(text, limit)
	obs.Text = text
	obs.TextBelow += dropped
	obs.TextCut = obs.TextCut || dropped > 0
}
