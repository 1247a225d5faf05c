package browser

import (
	"context"
	"encoding/json"
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

// Do performs one action with its checks before and after. While a
// dialog is held, only its answer (ActDialog) and leaving the page
// (navigate, back, forward, reload) can be done; anything else fails with
// a *DialogError.
func (t *Tab) Do(ctx context.Context, a Action) (*Result, error) {
	if err := t.validate(a); err != nil {
		return nil, fmt.Errorf("%s: %w", describe(a), err)
	}
	switch {
	case a.Kind == ActDialog:
		return t.doDialog(ctx, a)
	case a.Kind == ActAuth:
		return t.doAuth(ctx, a)
	case a.navigates() && t.blocked() != nil:
		return t.leaveBlocked(ctx, a)
	case a.navigates():
		t.unstick(ctx) // a page found stuck would not even be looked at first
	}
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", describe(a), err)
	}
	defer cancel()
	t.op.Lock()
	defer t.op.Unlock()
	start, url := time.Now(), t.Info().URL
	r, err := t.act(cctx, a)
	if err != nil {
		err = t.fail(cctx, err)
		if cr, ok := t.closedResult(a, err, start, url); ok {
			return cr, nil
		}
		return r, fmt.Errorf("%s: %w", describe(a), err)
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
	// shown counts the visible controls before a hover (counted set).
	shown   int
	counted bool
	// leaving: the input let go on a navigation the page asked for before
	// it (a "Leave site?" accepted), whose request this step's events
	// never saw; the settle awaits its fate all the same.
	leaving bool
	// look is the new document's first look, planned before a navigation
	// the tab starts (firstlook.go).
	look *firstLook
	// lookSeq numbers the look the settle takes in its own call, if any.
	lookSeq int64
	// early is the settle taken in the input's own call (its answer's
	// st), when it was.
	early json.RawMessage
	// again, while set, are the URLs of the code the page's script was
	// still loading when its first settle ended: the settle that follows
	// waits for them (settleLoads).
	again []string
}

// act runs one action: it finds the target, takes the page's state,
// sends the input, waits for the page to settle and gives the verdict. An
// action interrupted by a dialog held for the holder returns at once, with
// the dialog as its effect. Caller holds t.op.
func (t *Tab) act(ctx context.Context, a Action) (*Result, error) {
	start, mark := time.Now(), t.notes.mark()
	t.looked = nil // a look taken before this action is not the page after it
	s := &step{a: a, r: &Result{Action: a.Kind, Ref: a.Ref}}
	r, err := t.actSteps(ctx, s, start)
	if interrupted(ctx) {
		// The error, if any, is the interruption itself.
		return t.raised(ctx, s, mark, start), nil
	}
	if r != nil {
		t.noteResult(ctx, r, mark)
		r.Took = time.Since(start)
	}
	return r, err
}

// actSteps is act's sequence.
func (t *Tab) actSteps(ctx context.Context, s *step, start time.Time) (*Result, error) {
	// Subscribed before the input, so a navigation it causes is not missed.
	ev := t.subscribeNav()
	defer ev.stop()
	if !s.a.navigates() {
		t.followLoads(ev)
	}
	if s.a.navigates() {
		// Leaving the document needs nothing of it: not its world (whose
		// making is the walker's whole cost on a page never looked at),
		// and no state to compare, since the verdict is where it went.
		s.before.URL = t.Info().URL
		s.look = t.planLook(ctx, s.a)
		defer t.unplan(s.look)
	} else if err := t.resolveBefore(ctx, s); err != nil {
		return nil, err
	}
	if err := t.perform(ctx, s); err != nil {
		return nil, err
	}
	return t.finish(ctx, s, ev, start)
}

// finish settles the page after the input and gives the verdict.
func (t *Tab) finish(ctx context.Context, s *step, ev *navEvents, start time.Time) (*Result, error) {
	a := s.a
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

// resolveBefore finds where the action acts and takes the page's state
// before its input.
func (t *Tab) resolveBefore(ctx context.Context, s *step) error {
	if err := t.resolve(ctx, s); err != nil {
		return err
	}
	return t.takeBefore(ctx, s)
}

// resolve finds the world the action's ref lives in, or the top frame's
// without one.
func (t *Tab) resolve(ctx context.Context, s *step) error {
	var err error
	if s.a.Ref != "" {
		s.w, s.off, err = t.locate(ctx, s.a.Ref)
	} else {
		s.w, _, err = t.mainWorld(ctx)
	}
	return err
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
	case ActNavigate, ActBack, ActForward, ActReload:
		return t.performNav(ctx, s.a)
	case ActClickAt:
		return t.clickAt(ctx, s.a.X, s.a.Y)
	case ActTypeFocused:
		return t.typeFocused(ctx, s.w, s.a.Text)
	case ActUpload:
		return t.upload(ctx, s)
	case ActDrag:
		return t.drag(ctx, s)
	case ActAuth:
		return t.answerAuth(ctx, nil, AuthAnswer{Username: s.a.Username, Password: s.a.Password, Cancel: !s.a.Accept}, DialogByHolder)
	}
	// ActWait sends nothing: it only waits for its condition.
	return nil
}
