package browser

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp/kb"
)

// chord is a key with modifiers.
type chord struct {
	mods int64
	key  *kb.Key
}

// namedKeys maps DOM key names to their definitions. It is built once and
// only read.
var namedKeys = func() map[string]*kb.Key {
	m := map[string]*kb.Key{}
	for r, k := range kb.Keys {
		if k.Print && r >= ' ' && r < 0x7f {
			continue
		}
		if _, ok := m[k.Key]; !ok {
			m[k.Key] = k
		}
	}
	m["Enter"] = kb.Keys['\r']
	m["Space"] = kb.Keys[' ']
	m["Tab"] = kb.Keys['\t']
	return m
}()

// CDP's modifier bits.
const (
	modAlt   = 1
	modCtrl  = 2
	modMeta  = 4
	modShift = 8
)

// parseChord reads "Enter", "Control+A", "Shift+Tab" or "Control++".
func parseChord(s string) (chord, error) {
	var c chord
	if s == "" {
		return c, fmt.Errorf("%w: key is required", ErrBadArgument)
	}
	parts := strings.Split(s, "+")
	if strings.HasSuffix(s, "++") || s == "+" {
		parts = append(parts[:len(parts)-2], "+")
	}
	for _, p := range parts[:len(parts)-1] {
		m, ok := modifier(p)
		if !ok {
			return c, fmt.Errorf("%w: unknown modifier %q in %q", ErrBadArgument, p, s)
		}
		c.mods |= m
	}
	k, err := keyNamed(parts[len(parts)-1])
	if err != nil {
		return c, err
	}
	c.key = k
	return c, nil
}

func modifier(name string) (int64, bool) {
	switch strings.ToLower(name) {
	case "control", "ctrl":
		return modCtrl, true
	case "alt", "option":
		return modAlt, true
	case "meta", "cmd", "command", "super":
		return modMeta, true
	case "shift":
		return modShift, true
	}
	return 0, false
}

// keyNamed finds a key by its DOM name (in any case) or its one character.
func keyNamed(p string) (*kb.Key, error) {
	if k, ok := namedKeys[p]; ok {
		return k, nil
	}
	if utf8.RuneCountInString(p) == 1 {
		r, _ := utf8.DecodeRuneInString(p)
		if k, ok := kb.Keys[r]; ok {
			return k, nil
		}
		return nil, fmt.Errorf("%w: unknown key %q", ErrBadArgument, p)
	}
	var found *kb.Key
	for name, k := range namedKeys {
		if strings.EqualFold(name, p) {
			found = k
		}
	}
	if found == nil {
		return nil, fmt.Errorf("%w: unknown key %q", ErrBadArgument, p)
	}
	return found, nil
}

// keys presses and releases a chord as trusted input.
func (t *Tab) keys(ctx context.Context, c chord) error {
	k := c.key
	down := input.DispatchKeyEventParams{
		Type: input.DispatchKeyEventTypeKeyDown, Modifiers: c.mods, Key: k.Key, Code: k.Code,
		WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native,
	}
	// Text goes with the keydown unless a command modifier turns the key
	// into a shortcut.
	if k.Print && c.mods&(modCtrl|modAlt|modMeta) == 0 {
		down.Text, down.UnmodifiedText = k.Text, k.Unmodified
	} else {
		down.Type = input.DispatchKeyEventTypeRawKeyDown
	}
	if k.Key == "Enter" && c.mods == 0 {
		down.Type, down.Text, down.UnmodifiedText = input.DispatchKeyEventTypeKeyDown, "\r", "\r"
	}
	if _, err := cdp.Call(ctx, t.target(), input.DispatchKeyEvent, down); err != nil {
		return err
	}
	up := down
	up.Type, up.Text, up.UnmodifiedText = input.DispatchKeyEventTypeKeyUp, "", ""
	_, err := cdp.Call(ctx, t.target(), input.DispatchKeyEvent, up)
	return err
}

// press presses a chord that validate has already parsed.
func (t *Tab) press(ctx context.Context, key string) error {
	c, err := parseChord(key)
	if err != nil {
		return err
	}
	return t.keys(ctx, c)
}

func (t *Tab) insertText(ctx context.Context, text string) error {
	_, err := cdp.Call(ctx, t.target(), input.InsertText, input.InsertTextParams{Text: text})
	return err
}

// fill types into (or clears) a text field. It runs the checks of a click
// (attached, visible, enabled, not inert, not covered at its point), then
// focuses and selects the field in the same call, as Playwright's fill
// does: no press. A press is not even trusted to focus (a page can keep
// the focus from it, and Chromium then inserts the text into the field
// that had it); the text itself goes in as trusted input.
func (t *Tab) fill(ctx context.Context, s *step) error {
	p, err := t.prepare(ctx, s.w, s.a.Ref, true)
	if err != nil {
		return err
	}
	t.pointedAt(s, p)
	if !p.Editable {
		return &ActionError{Ref: s.a.Ref, Reason: "not a text field (" + strings.ToLower(p.Tag) + ")"}
	}
	if s.a.Kind == ActClear || s.a.Text == "" {
		if err := t.keys(ctx, chord{key: namedKeys["Backspace"]}); err != nil {
			return err
		}
	} else if err := t.insertText(ctx, s.a.Text); err != nil {
		return err
	}
	if s.a.Submit {
		return t.keys(ctx, chord{key: namedKeys["Enter"]})
	}
	return nil
}

// typeFocused types into whatever has the focus: inserted text for a
// field, key events for anything else.
func (t *Tab) typeFocused(ctx context.Context, w *world, text string) error {
	var fi struct {
		None     bool   `json:"none"`
		Editable bool   `json:"editable"`
		Tag      string `json:"tag"`
	}
	if err := t.call(ctx, w, "focusedInfo", &fi); err != nil {
		return err
	}
	if fi.None {
		return ErrNoFocus
	}
	if fi.Editable || fi.Tag == "IFRAME" {
		return t.insertText(ctx, text)
	}
	// Canvas apps read keydown events, not text insertion.
	for _, ch := range text {
		for _, ev := range kb.Encode(ch) {
			if _, err := cdp.Call(ctx, t.target(), input.DispatchKeyEvent, *ev); err != nil {
				return err
			}
		}
	}
	return nil
}

// scrollKeys are the keys that scroll the page or the focused scroll box,
// each with the way it goes ("" sideways).
var scrollKeys = map[string]string{
	"End": "down", "Home": "up", "PageDown": "down", "PageUp": "up", " ": "down",
	"ArrowDown": "down", "ArrowUp": "up", "ArrowLeft": "", "ArrowRight": "",
}

// scrolls reports whether the action is a scroll, whose settle waits for
// the scroll itself to end (its animation) and, when it went nowhere, for
// what the page is still loading.
func (a Action) scrolls() bool {
	switch a.Kind {
	case ActScroll:
		return true
	case ActPress:
		// Control+End and Shift+Space scroll too; with Alt or Meta the
		// key is a command (history, the browser's own).
		c, err := parseChord(a.Key)
		if err != nil || c.mods&(modAlt|modMeta) != 0 {
			return false
		}
		_, ok := scrollKeys[c.key.Key]
		return ok
	}
	return false
}

// scrollDir is the way a scroll goes: down, up, or "" (sideways, to a
// ref, or not known).
func (a Action) scrollDir() string {
	if a.Kind == ActScroll {
		if a.Ref == "" && (a.Direction == "down" || a.Direction == "up") {
			return a.Direction
		}
		return ""
	}
	c, err := parseChord(a.Key)
	if err != nil {
		return ""
	}
	d := scrollKeys[c.key.Key]
	if c.key.Key == " " && c.mods&modShift != 0 {
		d = "up"
	}
	return d
}
