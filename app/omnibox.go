package app

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"vroom/browser"
)

// hostLike mirrors the omnibox's rule in frontend/src/lib/omnibox.ts.
var hostLike = regexp.MustCompile(`(?i)^(localhost|\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:]+\]|([a-z0-9-]+\.)+[a-z]{2,})(:\d{1,5})?(/\S*)?$`)

// omniboxURL returns the URL text means, and whether it is one: a scheme, or
// a single word that is clearly a host. Anything else is a task.
func omniboxURL(text string) (string, bool) {
	text = strings.TrimSpace(text)
	if text == "" || strings.ContainsAny(text, " \t\n") {
		return "", false
	}
	lower := strings.ToLower(text)
	for _, p := range []string{"http:", "https:", "file:", "about:", "chrome:"} {
		if strings.HasPrefix(lower, p) {
			return text, true
		}
	}
	if hostLike.MatchString(text) {
		if strings.HasPrefix(lower, "localhost") || strings.HasPrefix(lower, "127.") || strings.HasPrefix(lower, "[::1]") {
			return "http://" + text, true
		}
		return "https://" + text, true
	}
	return "", false
}

// Submit is the omnibox: a URL navigates the active tab (opening one if
// there is none); anything else starts a run on it, in tabs when the person
// attached some.
func (a *App) Submit(text string, tabs []string) (SubmitResult, error) {
	return a.SubmitFiles(text, tabs, nil)
}

// SubmitFiles is Submit with the files dropped on the omnibox: they make
// the text a task, and are the run's files (what its uploads may send).
func (a *App) SubmitFiles(text string, tabs, files []string) (SubmitResult, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return SubmitResult{}, errors.New("type a URL or a task")
	}
	if u, ok := omniboxURL(text); ok && len(tabs) == 0 && len(files) == 0 {
		return a.navigateActive(u)
	}
	id, err := a.startRun(withFiles(text, files), tabs, files)
	if err != nil {
		return SubmitResult{}, err
	}
	return SubmitResult{Kind: SubmitTask, RunID: id}, nil
}

func (a *App) navigateActive(u string) (SubmitResult, error) {
	ctx, cancel := context.WithTimeout(a.context(), browserWait)
	defer cancel()
	b, err := a.waitBrowser(ctx)
	if err != nil {
		return SubmitResult{}, fmt.Errorf("open %s: %w", u, err)
	}
	t, err := b.Tab(a.session().activeTab())
	if err != nil {
		if _, err := a.NewTab(u); err != nil {
			return SubmitResult{}, err
		}
		return SubmitResult{Kind: SubmitURL, URL: u}, nil
	}
	if _, err := t.Navigate(browser.WithOwner(ctx, User), u); err != nil {
		return SubmitResult{}, fmt.Errorf("open %s: %w", u, err)
	}
	return SubmitResult{Kind: SubmitURL, URL: u}, nil
}
