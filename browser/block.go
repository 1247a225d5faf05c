package browser

import (
	"context"
	"errors"
	"time"
)

// Two things a page asks for stop Chromium from running anything in it
// until they are answered: a JavaScript dialog held for the holder (the
// renderer waits inside alert()), and a password its top frame's
// navigation waits for (the page is frozen until the navigation goes on or
// stops). Each ends a context — its hold — with its error as the cause:
// calls into the page refuse to start while one is held, and calls in
// flight are interrupted.

// blocked returns the error of what blocks the page now, or nil.
func (t *Tab) blocked() error {
	if h := t.dlg.held(); h.Err() != nil {
		return context.Cause(h)
	}
	if h := t.auth.held(); h.Err() != nil {
		return context.Cause(h)
	}
	return nil
}

// interruptible returns a context that ends, with the cause of the hold,
// when the page becomes blocked.
func (t *Tab) interruptible(ctx context.Context) (context.Context, func()) {
	ictx, cancel := context.WithCancelCause(ctx)
	dh, ah := t.dlg.held(), t.auth.held()
	stopD := context.AfterFunc(dh, func() { cancel(context.Cause(dh)) })
	stopA := context.AfterFunc(ah, func() { cancel(context.Cause(ah)) })
	return ictx, func() { stopD(); stopA(); cancel(nil) }
}

// heldDialog returns the dialog that interrupted ctx, or nil.
func heldDialog(ctx context.Context) *Dialog {
	var de *DialogError
	if errors.As(context.Cause(ctx), &de) {
		return &de.Dialog
	}
	return nil
}

// heldAuth returns the challenge that interrupted ctx, or nil.
func heldAuth(ctx context.Context) *AuthChallenge {
	var ae *AuthError
	if errors.As(context.Cause(ctx), &ae) {
		return &ae.Challenge
	}
	return nil
}

// interrupted reports whether ctx was ended by a hold.
func interrupted(ctx context.Context) bool {
	return heldDialog(ctx) != nil || heldAuth(ctx) != nil
}

// raised turns an action interrupted by a hold into its result: what
// blocks the page is the action's effect.
func (t *Tab) raised(ctx context.Context, s *step, mark int, start time.Time) *Result {
	if d := heldDialog(ctx); d != nil {
		return t.raisedDialog(ctx, s, d, mark, start)
	}
	r := s.r
	t.noteResult(ctx, r, mark)
	c := heldAuth(ctx)
	r.Auth, r.NavRequested, r.Settled, r.Took = c, true, true, time.Since(start)
	addEffect(r, "a password asked")
	if r.URL == "" {
		r.URL = s.before.URL
	}
	return r
}
