package browser

import "context"

// An action inside an iframe can change the page around it: a consent
// dialog's button posts a message and the page removes the dialog, an
// embedded form tells the page to show a receipt. The frame's own document
// may not change at all, so the verdict looks at the top frame's too.

// topQuietMs bounds the top frame's settle after an action in an iframe,
// network included: the page reacts to a message within a task or two,
// or with a short timer or a request of its own.
const topQuietMs = 1000

// takeTopBefore records the top frame's state before an action in an
// iframe (s.w is not the top frame's world).
func (t *Tab) takeTopBefore(ctx context.Context, s *step) error {
	if string(s.w.frame) == t.id {
		return nil
	}
	w, _, err := t.mainWorld(ctx)
	if err != nil {
		return err
	}
	s.top = w
	// true: the top frame's network window opens too, so the timers and
	// requests the page starts in reaction are waited for.
	return t.call(ctx, w, "fingerprint", &s.topBefore, "", true)
}

// topChanged reports whether the top frame's document changed since
// takeTopBefore (its DOM or its form state; not its focus, which a click
// into an iframe moves to the iframe), once it has settled.
func (t *Tab) topChanged(ctx context.Context, s *step) (bool, error) {
	if s.top == nil || s.frameGone {
		return false, nil
	}
	var st settled
	if err := t.call(ctx, s.top, "settle", &st, quietMs, topQuietMs, nil, "", nil, topQuietMs); err != nil {
		return false, err
	}
	var after fingerprint
	if err := t.call(ctx, s.top, "fingerprint", &after, "", false); err != nil {
		return false, err
	}
	return after.Muts != s.topBefore.Muts || after.Form != s.topBefore.Form, nil
}
