package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
)

// The desktop's clipboard and input methods meet a person's tab here:
// Chromium's own clipboard is cut off from the desktop, so a paste brings
// the desktop's text in, and what an input method composed (an emoji, a
// word in another script) arrives whole rather than as keys.

// InsertText inserts text at the focus of the tab's page as typed input:
// the page sees beforeinput and input, as from an input method's commit.
func (t *Tab) InsertText(ctx context.Context, text string) error {
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return fmt.Errorf("insert text: %w", err)
	}
	defer cancel()
	if _, err := cdp.Call(cctx, t.target(), input.InsertText, input.InsertTextParams{Text: text}); err != nil {
		return fmt.Errorf("insert text: %w", t.fail(cctx, err))
	}
	return nil
}

// PasteText pastes text into the focused element of a tab served to a
// person (ServePerson): the page gets its paste event carrying the text,
// and unless it handles the paste itself the text is inserted where a
// field has the focus.
func (t *Tab) PasteText(ctx context.Context, text string) error {
	top, err := t.topPerson()
	if err != nil {
		return fmt.Errorf("paste: %w", err)
	}
	var insert bool
	if err := t.personCall(ctx, top, &insert, "paste", text); err != nil {
		return fmt.Errorf("paste: %w", err)
	}
	if !insert {
		return nil
	}
	if err := t.InsertText(ctx, text); err != nil {
		return fmt.Errorf("paste: %w", err)
	}
	return nil
}

// SelectedText is the text a copy would take in a tab served to a person:
// the focused field's selected characters, or the page's selection.
func (t *Tab) SelectedText(ctx context.Context) (string, error) {
	top, err := t.topPerson()
	if err != nil {
		return "", fmt.Errorf("selected text: %w", err)
	}
	var s string
	if err := t.personCall(ctx, top, &s, "selection"); err != nil {
		return "", fmt.Errorf("selected text: %w", err)
	}
	return s, nil
}
