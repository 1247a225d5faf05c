package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// selectOption picks an option in a native select, or opens a custom
// combobox and clicks its option with trusted input.
func (t *Tab) selectOption(ctx context.Context, s *step) error {
	var res struct {
		Err      string   `json:"err"`
		OK       bool     `json:"ok"`
		Chosen   string   `json:"chosen"`
		Custom   bool     `json:"custom"`
		Expanded *string  `json:"expanded"`
		Options  []string `json:"options"`
		// FP is the page's state before the choice, taken in the same
		// call (takeBefore leaves it to this one).
		FP *fingerprint `json:"fp"`
		// St is the settle the same call took (settledChoice).
		St json.RawMessage `json:"st"`
	}
	// A choice whose handlers start nothing is settled in the call that
	// makes it: without a condition to wait for, in the top frame.
	var then map[string]any
	if s.a.Until == nil && t.settlesFast(s) {
		fn, args := t.settleArgs(s)
		then = map[string]any{"fn": fn, "args": args}
	}
	// Native selects render their popup outside the page, so the value is
	// set in the page (as Puppeteer does), with input and change events.
	if err := t.call(ctx, s.w, "selectNative", &res, s.a.Ref, s.a.Option, true, then); err != nil {
		return err
	}
	if len(res.St) > 0 && string(res.St) != "null" {
		s.early = res.St
	}
	if res.FP != nil {
		s.before = *res.FP
		t.tookBefore(s)
	}
	if res.Err != "" {
		if res.Err == "no option" {
			return fmt.Errorf("%w: no option %q (options: %s)", ErrBadArgument, s.a.Option, strings.Join(res.Options, "|"))
		}
		return prepError(s.a.Ref, prep{Err: res.Err})
	}
	if !res.Custom {
		s.r.Note = "chose " + res.Chosen
		return nil
	}
	if res.Expanded == nil || *res.Expanded != "true" {
		_, x, y, err := t.pointer(ctx, s.w, s.off, s.a.Ref)
		if err != nil {
			return err
		}
		if err := t.clickPoint(ctx, x, y); err != nil {
			return err
		}
	}
	ref, err := t.awaitOption(ctx, s)
	if err != nil {
		return err
	}
	_, x, y, err := t.pointer(ctx, s.w, s.off, ref)
	if err != nil {
		return err
	}
	s.r.Note = "clicked option " + ref
	return t.clickPoint(ctx, x, y)
}

// awaitOption waits for the open listbox to show the option, which may
// render after the click, and hands out a ref for it.
func (t *Tab) awaitOption(ctx context.Context, s *step) (string, error) {
	var found struct {
		Err     string `json:"err"`
		Ref     string `json:"ref"`
		NextRef int    `json:"nextRef"`
	}
	deadline := time.Now().Add(t.b.opts.SettleTimeout)
	for {
		var st struct{}
		if err := t.call(ctx, s.w, "settle", &st, 30, 500, nil); err != nil {
			return "", err
		}
		found.Err = ""
		if err := t.call(ctx, s.w, "findOption", &found, s.a.Ref, s.a.Option, t.nextRef); err != nil {
			return "", err
		}
		if found.Err == "" || time.Now().After(deadline) {
			break
		}
	}
	if found.Err != "" {
		return "", fmt.Errorf("%w: no visible option %q after opening %s", ErrBadArgument, s.a.Option, s.a.Ref)
	}
	t.nextRef = found.NextRef
	t.refs[found.Ref] = t.refs[s.a.Ref]
	return found.Ref, nil
}
