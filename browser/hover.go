package browser

import (
	"context"

	"github.com/chromedp/cdproto/input"
)

// A hover opens what a page shows under the pointer: a menu on mouseenter
// (a change a script makes, seen as any other), or one on CSS :hover
// alone, which changes no node and no attribute. The hover's verdict also
// counts the page's visible controls before and after, so a menu that
// appeared by style is its effect.

// shownJS counts the visible controls of the document.
const shownJS = `(() => {
  let n = 0;
  for (const el of document.querySelectorAll('a[href],button,input,select,textarea,summary,[role],[tabindex],[onclick]')) {
    if (el.checkVisibility({visibilityProperty: true, opacityProperty: true})) n++;
  }
  return n;
})()`

// hover moves the pointer onto the checked target, counting the visible
// controls before it.
func (t *Tab) hover(ctx context.Context, s *step) error {
	p, err := t.prepare(ctx, s.w, s.a.Ref, false)
	if err != nil {
		return err
	}
	t.pointedAt(s, p)
	if err := t.evalIn(ctx, s.w, shownJS, &s.shown); err != nil {
		return err
	}
	s.counted = true
	x, y := p.X+s.off[0], p.Y+s.off[1]
	if err := t.mouse(ctx, input.DispatchMouseEventTypeMouseMoved, x, y, 0); err != nil {
		return err
	}
	var rc prep
	if err := t.call(ctx, s.w, "recheck", &rc, s.a.Ref, p.X, p.Y, t.nextRef); err != nil {
		return err
	}
	if rc.Err != "" {
		t.noteLayer(s.a.Ref, rc)
		return prepError(s.a.Ref, rc)
	}
	return nil
}

// shownEffect adds to the verdict the controls a hover showed or hid.
func (t *Tab) shownEffect(ctx context.Context, s *step) error {
	if !s.counted || s.r.Navigated {
		return nil
	}
	var after int
	if err := t.evalIn(ctx, s.w, shownJS, &after); err != nil {
		return err
	}
	switch {
	case after > s.shown:
		addEffect(s.r, "controls shown")
	case after < s.shown:
		addEffect(s.r, "controls hidden")
	}
	return nil
}
