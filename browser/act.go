package browser

import (
	"context"
	"fmt"
	"time"
)

// Click clicks the control.
func (t *Tab) Click(ctx context.Context, ref string) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActClick, Ref: ref})
}

// Type replaces the field's content with text, pressing Enter after when
// submit is set.
func (t *Tab) Type(ctx context.Context, ref, text string, submit bool) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActType, Ref: ref, Text: text, Submit: submit})
}

// Select chooses an option of a native select or a custom listbox.
func (t *Tab) Select(ctx context.Context, ref, option string) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActSelect, Ref: ref, Option: option})
}

// Press presses a key or chord such as "Enter" or "Control+A".
func (t *Tab) Press(ctx context.Context, key string) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActPress, Key: key})
}

// Navigate loads url in the tab.
func (t *Tab) Navigate(ctx context.Context, url string) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActNavigate, URL: url})
}

// ClickAt clicks at screenshot coordinates.
func (t *Tab) ClickAt(ctx context.Context, x, y float64) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActClickAt, X: x, Y: y})
}

// TypeFocused types into whatever has keyboard focus.
func (t *Tab) TypeFocused(ctx context.Context, text string) (*Result, error) {
	return t.Do(ctx, Action{Kind: ActTypeFocused, Text: text})
}

// Do performs one action with its checks before and after.
func (t *Tab) Do(ctx context.Context, a Action) (*Result, error) {
	if err := t.validate(a); err != nil {
		return nil, fmt.Errorf("%s: %w", describe(a), err)
	}
	switch a.Kind {
	case ActNavigate, ActBack, ActForward, ActReload:
		t.unstick(ctx) // a page found stuck would not even be looked at first
	}
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", describe(a), err)
	}
	defer cancel()
	t.op.Lock()
	defer t.op.Unlock()
	r, err := t.act(cctx, a)
	if err != nil {
		return r, fmt.Errorf("%s: %w", describe(a), t.fail(cctx, err))
	}
	return r, nil
}

// step is one action under way: where it acts and the page's state from
// just before the input, which the verdict compares with.
type step struct {
	a   Action
	w   *world     // the target's frame world (the top frame's without a ref)
	off [2]float64 // that frame's offset in the top viewport
	r   *Result
	// before is the page's state before the input; shot, for click_at,
	// a thumbnail of the screen, since a canvas repaint changes no DOM.
	before fingerprint
	shot   []byte
	// frameGone: the input removed the frame it went into (a consent
	// dialog's iframe closing itself); the page settles and is judged in
	// the top frame.
	frameGone bool
	// top and topBefore are the top frame's world and state before the
	// input, for an action inside an iframe: its effect may be the page's
	// (the frame posts a message and the page reacts).
	top       *world
	topBefore fingerprint
}

// act runs one action: it finds the target, takes the page's state,
// sends the input, waits for the page to settle and gives the verdict.
// Caller holds t.op.
func (t *Tab) act(ctx context.Context, a Action) (*Result, error) {
	start := time.Now()
	s, err := t.newStep(ctx, a)
	if err != nil {
		return nil, err
	}
	// Subscribed before the input, so a navigation it causes is not missed.
	ev := t.subscribeNav()
	defer ev.stop()
	if err := t.takeBefore(ctx, s); err != nil {
		return nil, err
	}
	if err := t.perform(ctx, s); err != nil {
		return nil, err
	}
	st, err := t.settle(ctx, s, ev)
	if err != nil {
		if st.hung {
			s.r.Took, s.r.URL = time.Since(start), s.before.URL
			return s.r, err
		}
		return nil, err
	}
	if err := t.verdict(ctx, s, st); err != nil {
		return nil, err
	}
	s.r.Took = time.Since(start)
	if a.Until != nil && (st.Cond == nil || !*st.Cond) {
		return s.r, fmt.Errorf("%w: %s", ErrCondition, condString(a.Until))
	}
	return s.r, nil
}

// newStep resolves the action's ref, or the top frame without one.
func (t *Tab) newStep(ctx context.Context, a Action) (*step, error) {
	s := &step{a: a, r: &Result{Action: a.Kind, Ref: a.Ref}}
	var err error
	if a.Ref != "" {
		s.w, s.off, err = t.locate(ctx, a.Ref)
	} else {
		s.w, _, err = t.mainWorld(ctx)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// perform sends the action's input.
func (t *Tab) perform(ctx context.Context, s *step) error {
	switch s.a.Kind {
	case ActClick:
		return t.click(ctx, s)
	case ActHover:
		return t.hover(ctx, s)
	case ActType, ActClear:
		return t.fill(ctx, s)
	case ActSelect:
		return t.selectOption(ctx, s)
	case ActPress:
		return t.press(ctx, s.a.Key)
	case ActScroll:
		return t.scroll(ctx, s)
	case ActNavigate:
		return t.navigate(ctx, s.a.URL)
	case ActBack, ActForward:
		return t.history(ctx, s.a.Kind)
	case ActReload:
		return t.reload(ctx)
	case ActClickAt:
		return t.clickAt(ctx, s.a.X, s.a.Y)
	case ActTypeFocused:
		return t.typeFocused(ctx, s.w, s.a.Text)
	case ActUpload:
		return t.upload(ctx, s.w, s.a)
	}
	// ActWait sends nothing: it only waits for its condition.
	return nil
}
