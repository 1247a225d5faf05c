package app

import (
	"context"
	"fmt"
	"slices"

	"vroom/app/config"
	"vroom/browser"
)

// A page of the person's tabs asking for a permission (location,
// notifications, camera, microphone) is asked of the person, as Chrome
// does: allow while visiting the site (remembered in Settings, which list
// and forget them), allow this time (until the tab closes), or never allow
// (remembered). A permission remembered is not asked again: the browser
// has it set for the site, and the page's request is answered by it.

// AskPermission is a page's permission request, as a PageAsk.
const AskPermission PageAskKind = "permission"

// PermissionDecision is the person's answer to a permission request.
type PermissionDecision string

// The answers a permission sheet offers.
const (
	PermissionAlways PermissionDecision = "always"  // allowed for the site, remembered
	PermissionOnce   PermissionDecision = "once"    // allowed until the tab closes
	PermissionNever  PermissionDecision = "never"   // denied for the site, remembered
	PermissionNotNow PermissionDecision = "dismiss" // denied this time (the sheet closed)
)

// onceGrant is a permission allowed this time on a tab.
type onceGrant struct {
	tab, origin, name string
}

// applySitePermissions sets the remembered permissions on the browser, at
// its start.
func (a *App) applySitePermissions(ctx context.Context, b *browser.Browser) {
	a.mu.Lock()
	sites := slices.Clone(a.settings.Browser.Sites)
	a.mu.Unlock()
	for _, p := range sites {
		if err := b.SetPermission(ctx, p.Origin, p.Name, sitePermissionState(p.Allowed)); err != nil {
			a.log.Warn("a remembered permission", "origin", p.Origin, "name", p.Name, "err", err)
		}
	}
}

func sitePermissionState(allowed bool) browser.PermissionState {
	if allowed {
		return browser.PermissionGranted
	}
	return browser.PermissionDenied
}

// AnswerPermission answers the permission request id of the person's tab.
func (a *App) AnswerPermission(tab string, id int, decision PermissionDecision) error {
	t, err := a.personsTab(tab)
	if err != nil {
		return fmt.Errorf("answer the permission request: %w", err)
	}
	var ask *browser.PermissionAsk
	for _, p := range t.PermissionAsks() {
		if p.ID == id {
			ask = &p
		}
	}
	if ask == nil {
		return fmt.Errorf("answer the permission request: it is no longer waiting")
	}
	b, err := a.browserNow()
	if err != nil {
		return fmt.Errorf("answer the permission request: %w", err)
	}
	ctx, cancel := context.WithTimeout(browser.WithOwner(a.context(), User), browserWait)
	defer cancel()
	allowed := decision == PermissionAlways || decision == PermissionOnce
	for _, name := range ask.Names {
		if err := b.SetPermission(ctx, ask.Origin, name, sitePermissionState(allowed)); err != nil {
			return fmt.Errorf("answer the permission request: %w", err)
		}
	}
	err = t.AnswerPermission(ctx, id)
	// A denial this time lasts this request only: the next one asks again.
	if decision == PermissionNotNow {
		for _, name := range ask.Names {
			if rerr := b.SetPermission(ctx, ask.Origin, name, browser.PermissionPrompt); rerr != nil {
				a.log.Warn("reset a permission", "origin", ask.Origin, "name", name, "err", rerr)
			}
		}
	}
	emit(a, EventPageAsks, a.PageAsks())
	if err != nil {
		return fmt.Errorf("answer the permission request: %w", err)
	}
	return a.rememberPermission(tab, *ask, decision)
}

// rememberPermission keeps the answer: in Settings for good, or for the
// tab's life.
func (a *App) rememberPermission(tab string, ask browser.PermissionAsk, decision PermissionDecision) error {
	switch decision {
	case PermissionOnce:
		a.person.mu.Lock()
		for _, name := range ask.Names {
			a.person.once = append(a.person.once, onceGrant{tab: tab, origin: ask.Origin, name: name})
		}
		a.person.mu.Unlock()
		return nil
	case PermissionAlways, PermissionNever:
		a.mu.Lock()
		st := a.settings
		a.mu.Unlock()
		sites := slices.Clone(st.Browser.Sites)
		for _, name := range ask.Names {
			sites = slices.DeleteFunc(sites, func(p config.SitePermission) bool { return p.Origin == ask.Origin && p.Name == name })
			sites = append(sites, config.SitePermission{Origin: ask.Origin, Name: name, Allowed: decision == PermissionAlways})
		}
		st.Browser.Sites = sites
		if _, err := a.SaveSettings(st); err != nil {
			return fmt.Errorf("remember the permission: %w", err)
		}
	}
	return nil
}

// ForgetPermission forgets the remembered permission name of origin: the
// site asks again next time.
func (a *App) ForgetPermission(origin, name string) (State, error) {
	a.mu.Lock()
	st := a.settings
	a.mu.Unlock()
	st.Browser.Sites = slices.DeleteFunc(slices.Clone(st.Browser.Sites), func(p config.SitePermission) bool { return p.Origin == origin && p.Name == name })
	if b, err := a.browserNow(); err == nil {
		ctx, cancel := context.WithTimeout(a.context(), browserWait)
		defer cancel()
		// Refused only for a setting the browser cannot hold for that
		// origin (an insecure one), which it then never applied either.
		if err := b.SetPermission(ctx, origin, name, browser.PermissionPrompt); err != nil {
			a.log.Warn("forget a permission", "origin", origin, "name", name, "err", err)
		}
	}
	return a.SaveSettings(st)
}

// endOnceGrants takes back what was allowed this time on a closed tab,
// unless the person has since allowed it for good.
func (a *App) endOnceGrants(ctx context.Context, b *browser.Browser, tab string) {
	a.person.mu.Lock()
	var ended []onceGrant
	a.person.once = slices.DeleteFunc(a.person.once, func(g onceGrant) bool {
		if g.tab == tab {
			ended = append(ended, g)
			return true
		}
		return false
	})
	a.person.mu.Unlock()
	a.mu.Lock()
	sites := slices.Clone(a.settings.Browser.Sites)
	a.mu.Unlock()
	for _, g := range ended {
		if slices.ContainsFunc(sites, func(p config.SitePermission) bool { return p.Origin == g.origin && p.Name == g.name }) {
			continue
		}
		if err := b.SetPermission(ctx, g.origin, g.name, browser.PermissionPrompt); err != nil {
			a.log.Warn("end a permission allowed this time", "origin", g.origin, "name", g.name, "err", err)
		}
	}
}
