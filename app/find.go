package app

import (
	"context"
	"fmt"

	"vroom/browser"
)

// FindInPage finds text in the tab as Chrome's find bar does (Ctrl+F):
// the count of matches and the active one, every match highlighted. The
// same text again with step 1 or -1 moves to the next or previous match;
// "" closes the find and clears the highlights.
func (a *App) FindInPage(tabID, text string, step int) (browser.FindResult, error) {
	t, err := a.userTab(tabID)
	if err != nil {
		return browser.FindResult{}, fmt.Errorf("find: %w", err)
	}
	ctx, cancel := context.WithTimeout(a.context(), inputWait)
	defer cancel()
	return t.FindInPage(browser.WithOwner(ctx, a.inputOwner(tabID)), text, step)
}
