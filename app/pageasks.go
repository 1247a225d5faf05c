package app

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"vroom/browser"
)

// What a page of the person's own tabs asks of the browser — a JavaScript
// dialog, a site's user name and password, files for an upload, a
// download — is answered by the person, as in Chrome: the browser holds it
// (the person's tabs hold every dialog, alerts too), the UI draws it over
// the tab's view, and the answer goes back through the tab. The agents'
// tabs answer the same events themselves (browser, runner); a tab an agent
// holds is not the person's to answer, so its asks are not shown.
//
// Nothing here blocks on the person: a held dialog freezes its own page
// only, and the follower that turns the browser's events into the UI's
// never waits on an answer, so the other tabs browse and a run goes on.

// EventPageAsks carries a PageAsksView whenever what the person's tabs
// ask changes (a dialog opened or closed, a password asked or answered).
const EventPageAsks Event[PageAsksView] = "page:asks"

// PageAskKind says what a page asks.
type PageAskKind string

// What a page asks of the person.
const (
	AskDialog PageAskKind = "dialog" // a JavaScript dialog: alert, confirm, prompt, "Leave site?"
	AskAuth   PageAskKind = "auth"   // a site's or a proxy's user name and password
)

// PageAsk is one thing a page of the person's tabs waits for them to
// answer.
type PageAsk struct {
	Tab    string                 `json:"tab"`
	Kind   PageAskKind            `json:"kind"`
	Dialog *browser.Dialog        `json:"dialog,omitempty"`
	Auth   *browser.AuthChallenge `json:"auth,omitempty"`
	// Permission is a page's permission request (AskPermission).
	Permission *browser.PermissionAsk `json:"permission,omitempty"`
}

// PageAsksView is every ask waiting on the person's tabs, oldest first per
// tab; the sidebar marks their tabs and each tab's view draws its own.
type PageAsksView struct {
	Asks []PageAsk `json:"asks"`
}

// personSide is what the desktop keeps of the person's own browsing: the
// downloads their tabs started. It has its own lock.
type personSide struct {
	mu        sync.Mutex
	downloads map[string]bool // ids of downloads the person's tabs started
	once      []onceGrant     // permissions allowed this time, until their tab closes
	dir       string          // the download folder last set on the open tabs
}

// followAsks turns the browser's page events into the UI's until ctx
// ends. It only reads the tabs' state and emits: answering is the
// bindings', so a page nobody answers holds nothing up here.
func (a *App) followAsks(ctx context.Context, b *browser.Browser) {
	events := b.Subscribe(ctx)
	a.applySitePermissions(ctx, b)
	for ev := range events {
		switch ev.Kind {
		case browser.TabOpened, browser.TabReleased:
			if ev.Tab.Owner == "" {
				go a.personTab(ctx, b, ev.Tab.ID)
			}
		case browser.TabClosed:
			go a.endOnceGrants(ctx, b, ev.Tab.ID)
			emit(a, EventPageAsks, a.PageAsks())
		case browser.DialogOpened, browser.DialogClosed, browser.AuthRequired, browser.AuthAnswered,
			browser.PermissionAsked, browser.PermissionAnswered:
			emit(a, EventPageAsks, a.PageAsks())
		case browser.FileChooserOpened:
			if ev.Tab.Owner == "" && ev.Chooser != nil {
				go a.chooseFilesFor(ctx, ev.Tab.ID, *ev.Chooser)
			}
		case browser.DownloadStarted, browser.DownloadProgress, browser.DownloadDone, browser.DownloadFailed:
			a.noteDownload(ev)
		}
	}
}

// personTab gives a tab the person's ways once it is theirs again: the
// browser's options (every dialog and password request held for them,
// their download folder, sound on)
// instead of the policy and folder of the run that held it.
func (a *App) personTab(ctx context.Context, b *browser.Browser, id string) {
	t, err := b.Tab(id)
	if err != nil {
		return // closed already: nothing to set
	}
	cctx, cancel := context.WithTimeout(browser.WithOwner(ctx, User), inputWait)
	defer cancel()
	// Refused only when an agent leased the tab meanwhile: it is then the
	// run's, which sets its own.
	if err := t.SetDialogPolicy(cctx, nil); err != nil {
		return
	}
	if err := t.SetAuthPolicy(cctx, nil); err != nil {
		return
	}
	if err := t.SetMuted(cctx, false); err != nil {
		a.log.Warn("the person's tab's sound", "tab", id, "err", err)
	}
	if err := t.SetDownloads(cctx, browser.DownloadOptions{Dir: a.downloadsDir()}); err != nil {
		a.log.Warn("the person's download folder", "tab", id, "err", err)
	}
}

// PageAsks returns what the person's tabs wait for them to answer.
func (a *App) PageAsks() PageAsksView {
	v := PageAsksView{Asks: []PageAsk{}}
	b, err := a.browserNow()
	if err != nil {
		return v
	}
	for _, info := range b.Tabs(browser.TabQuery{Limit: 1000}).Tabs {
		if info.Owner != "" {
			continue
		}
		t, err := b.Tab(info.ID)
		if err != nil {
			continue // closed since the list was read
		}
		if d, ok := t.Dialog(); ok && d.Held {
			v.Asks = append(v.Asks, PageAsk{Tab: info.ID, Kind: AskDialog, Dialog: &d})
		}
		for _, c := range t.AuthChallenges() {
			v.Asks = append(v.Asks, PageAsk{Tab: info.ID, Kind: AskAuth, Auth: &c})
		}
		for _, p := range t.PermissionAsks() {
			v.Asks = append(v.Asks, PageAsk{Tab: info.ID, Kind: AskPermission, Permission: &p})
		}
	}
	return v
}

// AnswerDialog answers the dialog open on the person's tab: accept is OK
// (or "Leave"), otherwise Cancel; text is what a prompt returns.
func (a *App) AnswerDialog(tab string, accept bool, text string) error {
	t, err := a.personsTab(tab)
	if err != nil {
		return fmt.Errorf("answer the dialog: %w", err)
	}
	ctx, cancel := context.WithTimeout(browser.WithOwner(a.context(), User), browserWait)
	defer cancel()
	_, err = t.AnswerDialog(ctx, browser.DialogAnswer{Accept: accept, Text: text})
	emit(a, EventPageAsks, a.PageAsks())
	if err != nil {
		return fmt.Errorf("answer the dialog: %w", err)
	}
	return nil
}

// AnswerAuth answers the oldest password request of the person's tab:
// the credentials, or a cancel.
func (a *App) AnswerAuth(tab string, ans browser.AuthAnswer) error {
	t, err := a.personsTab(tab)
	if err != nil {
		return fmt.Errorf("sign in: %w", err)
	}
	ctx, cancel := context.WithTimeout(browser.WithOwner(a.context(), User), browserWait)
	defer cancel()
	_, err = t.AnswerAuth(ctx, ans)
	emit(a, EventPageAsks, a.PageAsks())
	if err != nil {
		return fmt.Errorf("sign in: %w", err)
	}
	return nil
}

// personsTab is the session's tab id, refused while an agent holds it
// (its asks are the agent's to answer).
func (a *App) personsTab(id string) (*browser.Tab, error) {
	b, err := a.browserNow()
	if err != nil {
		return nil, err
	}
	t, err := b.Tab(id)
	if err != nil {
		return nil, err
	}
	if o := t.Info().Owner; o != "" {
		return nil, fmt.Errorf("%s is working in that tab and answers its page", o)
	}
	return t, nil
}

// askShown drops the error of the person's input that met a page blocked
// by what it asks (a dialog, a password): the sheet drawn over the view
// already says so, and is what to answer. Other errors, and those of a tab
// an agent holds, are returned as they are.
func (a *App) askShown(t *browser.Tab, err error) error {
	var de *browser.DialogError
	var ae *browser.AuthError
	if (errors.As(err, &de) || errors.As(err, &ae)) && t.Info().Owner == "" {
		return nil
	}
	return err
}
