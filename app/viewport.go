package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"

	"vroom/app/config"
	"vroom/browser"
)

// The person's tab is laid out at the size it is shown at: its viewport
// follows the view (the page reflows rather than being scaled) at the
// window's device pixel ratio, so its text is as sharp as the screen
// allows. Page zoom, per site as in Chrome, is the same viewport laid out
// narrower and drawn larger. A tab an agent holds keeps its own viewport.

// zoomLevels are Chrome's page zoom steps.
var zoomLevels = []float64{0.25, 0.33, 0.5, 0.67, 0.75, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2, 2.5, 3, 4, 5}

// ShowView tells the app the size, in CSS pixels of the window, that the
// tab is shown at and the window's device pixel ratio: the person's own
// tab is laid out at that size. A tab an agent holds (or the person has
// taken over, which FitView sizes) is left as it is.
func (a *App) ShowView(tabID string, width, height int, dpr float64) error {
	if width <= 0 || height <= 0 || dpr <= 0 || math.IsNaN(dpr) {
		return fmt.Errorf("show view: bad size %dx%d at %g", width, height, dpr)
	}
	t, err := a.userTab(tabID)
	if err != nil {
		return fmt.Errorf("show view: %w", err)
	}
	if t.Info().Owner != "" || a.inputOwner(tabID) != User {
		return nil
	}
	nav := &a.session().nav
	nav.mu.Lock()
	if nav.views == nil {
		nav.views = map[string]personView{}
	}
	nav.views[tabID] = personView{w: width, h: height, dpr: dpr, site: nav.views[tabID].site}
	nav.mu.Unlock()
	return a.layOut(tabID)
}

// layOut sets the tab's viewport from its view and its site's zoom.
func (a *App) layOut(tabID string) error {
	t, err := a.userTab(tabID)
	if err != nil {
		return fmt.Errorf("lay out: %w", err)
	}
	site := siteOf(t.Info().URL)
	nav := &a.session().nav
	nav.mu.Lock()
	v, ok := nav.views[tabID]
	if ok {
		v.site = site
		nav.views[tabID] = v
	}
	nav.mu.Unlock()
	if !ok {
		return nil
	}
	z := a.siteZoom(site)
	ctx, cancel := context.WithTimeout(a.context(), inputWait)
	defer cancel()
	w, h := max(1, int(math.Round(float64(v.w)/z))), max(1, int(math.Round(float64(v.h)/z)))
	err = t.ShowAt(browser.WithOwner(ctx, User), w, h, v.dpr*z)
	var lease *browser.LeaseError
	if errors.As(err, &lease) {
		// An agent took the tab meanwhile: it keeps its own viewport.
		return nil
	}
	return err
}

// Zoom zooms the tab's site one step in (step 1), out (-1) or back to
// 100% (0), as Ctrl+plus, Ctrl+minus and Ctrl+0 do, and returns the zoom.
// Every shown tab of the site follows, and the site keeps it in Settings
// (Browser.Zoom), as Chrome keeps it in the profile.
func (a *App) Zoom(tabID string, step int) (float64, error) {
	t, err := a.userTab(tabID)
	if err != nil {
		return 0, fmt.Errorf("zoom: %w", err)
	}
	site := siteOf(t.Info().URL)
	z := nextZoom(a.siteZoom(site), step)
	if site != "" {
		if err := a.keepZoom(site, z); err != nil {
			return 0, fmt.Errorf("zoom: %w", err)
		}
	}
	if err := a.layOutSite(site, tabID); err != nil {
		return z, fmt.Errorf("zoom: %w", err)
	}
	return z, nil
}

// ForgetZoom sets site back to 100 % (Settings' list of zoomed sites):
// its shown tabs follow.
func (a *App) ForgetZoom(site string) (State, error) {
	if err := a.keepZoom(site, 1); err != nil {
		return State{}, fmt.Errorf("forget zoom: %w", err)
	}
	if a.session() != nil {
		if err := a.layOutSite(site, ""); err != nil {
			return State{}, fmt.Errorf("forget zoom: %w", err)
		}
	}
	return a.State()
}

// keepZoom stores site's zoom in Settings.
func (a *App) keepZoom(site string, z float64) error {
	a.mu.Lock()
	st := a.settings
	a.mu.Unlock()
	if config.ZoomOf(st.Browser.Zoom, site) == z {
		return nil
	}
	st.Browser.Zoom = config.WithZoom(st.Browser.Zoom, site, z)
	if _, err := a.SaveSettings(st); err != nil {
		return fmt.Errorf("keep the zoom of %s: %w", site, err)
	}
	return nil
}

// siteZoom is site's zoom as kept in Settings, 1 when none is.
func (a *App) siteZoom(site string) float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return config.ZoomOf(a.settings.Browser.Zoom, site)
}

// layOutSite lays out again every shown tab of site, and tab whatever its
// site.
func (a *App) layOutSite(site, tabID string) error {
	nav := &a.session().nav
	nav.mu.Lock()
	var shown []string
	for id, v := range nav.views {
		if v.site == site || id == tabID {
			shown = append(shown, id)
		}
	}
	nav.mu.Unlock()
	for _, id := range shown {
		if err := a.layOut(id); err != nil && !errors.Is(err, browser.ErrTabClosed) {
			return err
		}
	}
	return nil
}

// nextZoom is the zoom step from z: the next level up or down, or 1.
func nextZoom(z float64, step int) float64 {
	switch {
	case step > 0:
		for _, l := range zoomLevels {
			if l > z+0.001 {
				return l
			}
		}
		return zoomLevels[len(zoomLevels)-1]
	case step < 0:
		for _, l := range slices.Backward(zoomLevels) {
			if l < z-0.001 {
				return l
			}
		}
		return zoomLevels[0]
	}
	return 1
}

// siteOf is what zoom is kept per: the URL's host ("" for a page with
// none, such as about:blank).
func siteOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Host
}
