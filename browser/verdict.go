package browser

import (
	"bytes"
	"context"
	"errors"

	"github.com/chromedp/cdproto/page"
)

// fingerprint is the page's observable state, taken in the page before and
// after an action; what differs is the action's effect.
type fingerprint struct {
	URL      string `json:"url"`
	Muts     int    `json:"muts"`
	Downs    int    `json:"downs"`
	Scroll   string `json:"scroll"`
	Focus    string `json:"focus"`
	Value    string `json:"value"`
	Checked  string `json:"checked"`
	Expanded string `json:"expanded"`
	// Form digests the state of every form control in the document
	// (value, checked, selected), which a script can change with no
	// mutation to see: a stepper's "+" setting input.value.
	Form string `json:"form"`
	// Scrolls counts the scroll events the page and its scroll boxes
	// have fired; a scroll's settle starts from it (not compared: a box
	// the page scrolls itself is no effect of a click).
	Scrolls int `json:"scrolls"`
	// Masked are the masked fields' values, read with the state before an
	// input (masked.go): for the guard, never compared or shown.
	Masked []string `json:"masked,omitempty"`
}

// takeBefore records the page's state before the input. Pointer actions
// take it in the same call that checks and scrolls the target (pointedAt),
// so the scroll is not counted as their effect, and a choice in the call
// that makes it; the rest take it here.
func (t *Tab) takeBefore(ctx context.Context, s *step) error {
	if err := t.takeTopBefore(ctx, s); err != nil {
		return err
	}
	if !s.a.pointed() && s.a.Kind != ActSelect {
		// true: the action's network window opens here, before the input.
		// A select's own call takes it (selectOption).
		if err := t.call(ctx, s.w, "fingerprint", &s.before, s.a.Ref, true); err != nil {
			return err
		}
		t.tookBefore(s)
	}
	if s.a.Kind == ActClickAt {
		shot, err := t.thumb(ctx)
		if err != nil {
			// The click still goes in; only the screen comparison is lost,
			// and the verdict says so rather than claim no effect.
			s.r.Note = "the screen could not be compared: " + err.Error()
			t.b.opts.Logf("click_at %s: thumbnail before: %v", t.id, err)
		}
		s.shot = shot
	}
	return nil
}

// pointedAt takes the baseline a pointer check returned with its target.
func (t *Tab) pointedAt(s *step, p prep) {
	if p.FP != nil {
		s.before = *p.FP
		t.tookBefore(s)
	}
}

// verdict compares the page after the action with before and fills in the
// result: where the page is, whether it settled and what changed.
func (t *Tab) verdict(ctx context.Context, s *step, st settled) error {
	if st.navPending && t.authWaiting() {
		// The page's navigation waits for a password, and Chromium runs
		// nothing in the page meanwhile: the challenge is the verdict.
		r := s.r
		r.URL, r.Settled, r.NavRequested = s.before.URL, true, true
		addEffect(r, "a navigation started, not loaded yet")
		return nil
	}
	after, err := t.afterState(ctx, s, st)
	if err != nil {
		return err
	}
	r := s.r
	r.URL, r.Settled, r.Pending = after.URL, st.Settled, st.Pending
	if s.top != nil && !st.navigated && !s.frameGone {
		r.URL = s.topBefore.URL // the page's, not the frame's
	}
	// A wait that saw a navigation elsewhere only counts one that moved.
	r.Navigated = st.navigated && (after.URL != s.before.URL || s.a.Kind != ActWait)
	if r.Navigated {
		r.Effects = append(r.Effects, "navigation")
	}
	if s.frameGone {
		// before was the frame's state; the page is the top frame's.
		r.Effects = append(r.Effects, "its frame closed or moved on")
		r.Changed = true
		return nil
	}
	if r.NavRequested = st.navPending && !r.Navigated; r.NavRequested {
		r.Effects = append(r.Effects, "a navigation started, not loaded yet")
	}
	if !st.navigated {
		r.Effects = append(r.Effects, effects(s.a, s.before, after)...)
		if st.Scrolled && after.Scroll == s.before.Scroll {
			// A scroll box moved (a list's, a pane's), not the page.
			r.Effects = append(r.Effects, "scroll")
		}
	}
	if len(r.Effects) == 0 && !r.Navigated && st.images > 0 {
		// Nothing shows yet, but the page's script is loading what it
		// may show once it has come: not "no effect".
		r.Pending += st.images
	}
	// A request the action started and the page still awaits is its
	// effect too: acting again would send it twice.
	if r.Pending > 0 {
		r.Effects = append(r.Effects, "network")
	}
	if s.shot != nil {
		changed, err := t.screenChanged(ctx, s.shot)
		if err != nil {
			// As before the input: the verdict says what it could not see.
			r.Note = "the screen could not be compared: " + err.Error()
			t.b.opts.Logf("click_at %s: thumbnail after: %v", t.id, err)
		}
		if changed {
			r.Effects = append(r.Effects, "screen")
		}
	}
	if !r.Navigated {
		changed, err := t.topChanged(ctx, s)
		if err != nil {
			return err
		}
		if changed {
			r.Effects = append(r.Effects, "the page around its frame")
		}
	}
	if err := t.shownEffect(ctx, s); err != nil {
		return err
	}
	r.Changed = len(r.Effects) > 0
	return nil
}

// afterState is the page's state once the action settled, for the
// verdict to compare with before.
func (t *Tab) afterState(ctx context.Context, s *step, st settled) (fingerprint, error) {
	var after fingerprint
	switch {
	case st.FP != nil && !st.navigated:
		after = *st.FP
	case st.navigated && st.loaded != "" && !s.counted:
		// A new document: where it is is all the verdict compares.
		after.URL = st.loaded
	default:
		err := t.call(ctx, s.w, "fingerprint", &after, refIfSame(s.a, st.navigated))
		if err == nil {
			break
		}
		if !goneDocument(err) || s.top == nil || !t.frameLeft(ctx, s.w) {
			return after, err
		}
		// The frame settled, then the page removed it.
		s.frameGone = true
		if err := t.call(ctx, s.top, "fingerprint", &after, "", false); err != nil {
			return after, err
		}
	}
	return after, nil
}

// effects names what differs between two fingerprints of one document.
func effects(a Action, before, after fingerprint) []string {
	var out []string
	if after.URL != before.URL {
		out = append(out, "url")
	}
	if after.Muts != before.Muts {
		out = append(out, "dom")
	}
	// A clicked button taking focus is not an effect of the application.
	if after.Focus != before.Focus && !(a.Kind == ActClick && after.Focus == a.Ref) {
		out = append(out, "focus")
	}
	if after.Value != before.Value || after.Form != before.Form {
		out = append(out, "value")
	}
	if after.Checked != before.Checked {
		out = append(out, "checked")
	}
	if after.Expanded != before.Expanded {
		out = append(out, "expanded")
	}
	if after.Scroll != before.Scroll {
		out = append(out, "scroll")
	}
	return out
}

// refIfSame is the ref to fingerprint after the action: none once the
// document it belonged to is gone.
func refIfSame(a Action, navigated bool) string {
	if navigated {
		return ""
	}
	return a.Ref
}

// screenChanged compares a thumbnail taken now with the one from before.
func (t *Tab) screenChanged(ctx context.Context, before []byte) (bool, error) {
	shot, err := t.thumb(ctx)
	if err != nil {
		return false, err
	}
	return !bytes.Equal(before, shot), nil
}

var errNoThumb = errors.New("no thumbnail")

// thumb is a small, cheap capture used only to tell whether the screen
// changed (a canvas repaint has no DOM mutation to see).
func (t *Tab) thumb(ctx context.Context) ([]byte, error) {
	clip, err := t.viewportClip(ctx, 0.25)
	if err != nil {
		return nil, err
	}
	data, err := t.capture(ctx, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatPng, OptimizeForSpeed: new(true), Clip: clip,
	})
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errNoThumb
	}
	return data, nil
}
