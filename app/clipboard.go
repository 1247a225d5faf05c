package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"vroom/browser"
)

// Clipboard is the desktop's clipboard.
type Clipboard interface {
	Text() (string, error)
	SetText(text string) error
}

// ErrNoClipboard is a clipboard call without the window, whose clipboard
// it is.
var ErrNoClipboard = errors.New("no desktop clipboard: the window is not open")

// wailsClipboard is the window's clipboard through Wails.
type wailsClipboard struct{ ctx context.Context }

// Text is the clipboard's text.
func (c wailsClipboard) Text() (string, error) {
	if !hasWindow(c.ctx) {
		return "", ErrNoClipboard
	}
	return runtime.ClipboardGetText(c.ctx)
}

// SetText puts text on the clipboard.
func (c wailsClipboard) SetText(text string) error {
	if !hasWindow(c.ctx) {
		return ErrNoClipboard
	}
	return runtime.ClipboardSetText(c.ctx, text)
}

// hasWindow says whether ctx is the window's: Wails' runtime calls end the
// process on any other.
func hasWindow(ctx context.Context) bool {
	return ctx.Value("frontend") != nil // the key Wails' runtime looks up
}

// clipboard is the desktop's clipboard.
func (a *App) clipboard() Clipboard {
	return wailsClipboard{ctx: a.context()}
}

// Paste pastes the desktop clipboard's text into the focused element of
// the person's tab: the page gets its paste event, and a field the text.
func (a *App) Paste(tabID string) error {
	text, err := a.clipboard().Text()
	if err != nil {
		return fmt.Errorf("paste: %w", err)
	}
	if text == "" {
		return nil
	}
	t, err := a.userTab(tabID)
	if err != nil {
		return fmt.Errorf("paste: %w", err)
	}
	ctx, cancel := context.WithTimeout(a.context(), inputWait)
	defer cancel()
	return t.PasteText(browser.WithOwner(ctx, a.inputOwner(tabID)), text)
}

// Copy puts the text selected in the person's tab on the desktop's
// clipboard (the context menu's Copy; Ctrl+C in the page does it too).
func (a *App) Copy(tabID string) error {
	t, err := a.userTab(tabID)
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	ctx, cancel := context.WithTimeout(a.context(), inputWait)
	defer cancel()
	text, err := t.SelectedText(browser.WithOwner(ctx, a.inputOwner(tabID)))
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	if text == "" {
		return nil
	}
	return a.CopyText(text)
}

// CopyText puts text on the desktop's clipboard (a link's address).
func (a *App) CopyText(text string) error {
	if err := a.clipboard().SetText(text); err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	return nil
}

// InsertText types text an input method composed (an emoji, a word in
// another script) into the tab at its focus, whole.
func (a *App) InsertText(tabID string, text string) error {
	t, err := a.userTab(tabID)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(a.context(), inputWait)
	defer cancel()
	return t.InsertText(browser.WithOwner(ctx, a.inputOwner(tabID)), text)
}
