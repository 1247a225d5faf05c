package browser

import (
	"context"
	"fmt"
	"strings"

	"encoding/json"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// A cross-site iframe runs in a process of its own, reached through a
// session of its own (targets.go adopts it): personview.js is installed
// there too, so its selects, date and colour inputs and its context menu
// reach the view like the top document's. Its script cannot see where the
// frame sits in the page (the parent is another origin's): it reports its
// boxes in the frame's own viewport, marked, and placeInFrame adds the
// frame's place in the top document, which the browser knows.

// addPersonScript installs personview.js's binding-speaking script in
// every document of sess, now and to come.
func addPersonScript(ctx context.Context, sess *chromedp.Target) (page.ScriptIdentifier, error) {
	src := strings.Replace(personViewJS, "BINDING", "'"+personBinding+"'", 1)
	res, err := cdp.Call(ctx, sess, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: src, WorldName: personWorld, RunImmediately: new(true),
	})
	if err != nil {
		return "", fmt.Errorf("add script: %w", err)
	}
	return res.Identifier, nil
}

// armPersonFrames serves the out-of-process frames the tab has now; each
// one adopted later is served by personFrame. Best effort: a frame that
// cannot be armed keeps Chromium's unseen popups, the rest of the page
// is served.
func (t *Tab) armPersonFrames(ctx context.Context) {
	t.auth.mu.Lock()
	var frames []*chromedp.Target
	for _, s := range t.icpt.frames {
		frames = append(frames, s)
	}
	t.auth.mu.Unlock()
	for _, s := range frames {
		if err := t.personFrame(ctx, s); err != nil {
			t.b.opts.Logf("tab %s: serve a frame to the person: %v", t.id, err)
		}
	}
}

// personFrame serves the out-of-process frame of session s to the
// person, while the tab is served and unless it is already. Its events
// come through onAsk (personFrameEvent).
func (t *Tab) personFrame(ctx context.Context, s *chromedp.Target) error {
	pv := &t.pv
	pv.mu.Lock()
	_, done := pv.frames[s]
	serving := pv.script != ""
	pv.mu.Unlock()
	if !serving || done {
		return nil
	}
	if _, err := cdp.Call(ctx, s, runtime.AddBinding, runtime.AddBindingParams{Name: personBinding, ExecutionContextName: personWorld}); err != nil {
		return fmt.Errorf("add binding: %w", err)
	}
	script, err := addPersonScript(ctx, s)
	if err != nil {
		return err
	}
	pv.mu.Lock()
	if pv.script == "" {
		// Serving ended meanwhile: endPerson did not see this frame.
		pv.mu.Unlock()
		_, _ = cdp.Call(ctx, s, page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: script})
		return nil
	}
	if pv.frames == nil {
		pv.frames = map[*chromedp.Target]page.ScriptIdentifier{}
	}
	pv.frames[s] = script
	pv.mu.Unlock()
	return nil
}

// personFrameEvent takes what personview.js says in an out-of-process
// frame's session s, in that session's read loop (onAsk).
func (t *Tab) personFrameEvent(s *chromedp.Target, ev any) {
	switch ev := ev.(type) {
	case *runtime.EventBindingCalled:
		if ev.Name == personBinding {
			t.personBinding(s, ev)
		}
	case *runtime.EventExecutionContextCreated:
		t.personWorldMade(s, ev)
	}
}

// personWorldMade notes which frame a new personview.js world is the
// document of, for placeInFrame.
func (t *Tab) personWorldMade(s *chromedp.Target, ev *runtime.EventExecutionContextCreated) {
	if ev.Context == nil || ev.Context.Name != personWorld {
		return
	}
	var aux struct {
		FrameID cdp.FrameID `json:"frameId"`
	}
	if json.Unmarshal(ev.Context.AuxData, &aux) != nil || aux.FrameID == "" {
		return
	}
	pv := &t.pv
	pv.mu.Lock()
	defer pv.mu.Unlock()
	if pv.worlds == nil {
		pv.worlds = map[personWorldAt]cdp.FrameID{}
	}
	pv.worlds[personWorldAt{sess: s, ctx: ev.Context.ID}] = aux.FrameID
}

// placeInFrame moves e, whose box or point is in the viewport of the
// frame of world w, into the top document's viewport, and sends it if
// serving generation gen still is. An event whose frame cannot be placed
// (gone meanwhile) is dropped: drawn at the frame's own origin it would
// be in the wrong place.
func (t *Tab) placeInFrame(w personWorldAt, gen int, e PersonEvent) {
	ctx, cancel := context.WithTimeout(t.dead, t.b.opts.CallTimeout)
	defer cancel()
	t.pv.mu.Lock()
	frame := t.pv.worlds[w]
	t.pv.mu.Unlock()
	if frame == "" {
		t.b.opts.Logf("tab %s: a person's event from a frame not known", t.id)
		return
	}
	dx, dy, err := t.framePlace(ctx, frame, 0)
	if err != nil {
		t.b.opts.Logf("tab %s: place frame %s: %v", t.id, frame, err)
		return
	}
	switch {
	case e.Picker != nil:
		p := *e.Picker
		p.Rect.X, p.Rect.Y = p.Rect.X+dx, p.Rect.Y+dy
		e.Picker = &p
	case e.Menu != nil:
		m := *e.Menu
		m.X, m.Y = m.X+dx, m.Y+dy
		e.Menu = &m
	}
	pv := &t.pv
	pv.mu.Lock()
	defer pv.mu.Unlock()
	if pv.gen == gen && pv.out != nil {
		pv.sendLocked(e)
	}
}

// maxFrameDepth bounds the frames within frames framePlace climbs.
const maxFrameDepth = 8

// framePlace is where frame's viewport starts in the top document's
// viewport, in CSS pixels: its iframe element's content box, asked of the
// session whose document holds that element (the tab's own, or an
// out-of-process frame's, which is then placed in turn).
func (t *Tab) framePlace(ctx context.Context, frame cdp.FrameID, depth int) (float64, float64, error) {
	if depth > maxFrameDepth {
		return 0, 0, fmt.Errorf("frames nested deeper than %d", maxFrameDepth)
	}
	sessions := []*chromedp.Target{t.target()}
	t.auth.mu.Lock()
	owners := map[*chromedp.Target]cdp.FrameID{}
	for id, s := range t.icpt.frames {
		sessions = append(sessions, s)
		owners[s] = cdp.FrameID(id)
	}
	t.auth.mu.Unlock()
	for _, s := range sessions {
		owner, err := cdp.Call(ctx, s, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: frame})
		if err != nil {
			continue // the element is in another document
		}
		box, err := cdp.Call(ctx, s, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: owner.BackendNodeID})
		if err != nil || box.Model == nil || len(box.Model.Content) < 2 {
			return 0, 0, fmt.Errorf("the box of its iframe: %v", err)
		}
		x, y := box.Model.Content[0], box.Model.Content[1]
		if s == t.target() {
			return x, y, nil
		}
		px, py, err := t.framePlace(ctx, owners[s], depth+1)
		return x + px, y + py, err
	}
	return 0, 0, fmt.Errorf("no document holds the iframe of frame %s", frame)
}
