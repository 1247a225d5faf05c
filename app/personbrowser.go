package app

import (
	"fmt"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"vroom/browser"
)

// personAuthWait is how long a site's password request on the person's
// tab waits for them before it is cancelled: Chrome waits for ever, but a
// request left open for ever holds its connection, and half an hour is
// longer than anyone leaves a sign-in sheet open.
const personAuthWait = 30 * time.Minute

// personBrowser sets, on the options of the desktop's own Chromium, how a
// person's tabs behave by default, as in Chrome: every dialog held for the
// person (an alert too: they read it before it goes), a password request
// and a permission request held until they answer, downloads into their
// folder, sound on, and the pages they leave kept for Back. A
// run's tabs set their own dialog policy and folder when leased (runner);
// a tab back from a run gets the person's again (personTab).
//
// Sound: Chromium mutes a whole browser or nothing (--mute-audio; the
// DevTools protocol has no per-tab mute), so the desktop's browser plays
// sound, and a run mutes the tabs it leases (browser.Tab.SetMuted), so
// the room stays one voice at a time.
//
// What the browser could not do (a frame it could not guard, a request it
// could not let go) goes to the app's log as a warning: without it, a page
// that never appears leaves no trace of why.
func (a *App) personBrowser(o browser.Options) browser.Options {
	o.Logf = func(format string, args ...any) { a.log.Warn(fmt.Sprintf(format, args...), "from", "browser") }
	o.Dialogs = browser.HoldDialogs
	o.Auth = func(browser.AuthChallenge) browser.AuthPlan {
		return browser.AuthPlan{Answer: browser.AuthAnswer{Cancel: true}, Wait: personAuthWait}
	}
	o.Downloads.Dir = a.downloadsDir()
	a.person.mu.Lock()
	a.person.dir = o.Downloads.Dir
	a.person.mu.Unlock()
	o.AskPermissions = true
	o.KeepPagesForBack = true
	if o.Flags == nil {
		o.Flags = map[string]any{}
	}
	o.Flags["mute-audio"] = false
	o.SurfaceScale = a.screenScale()
	return o
}

// screenScale is the device pixel ratio of the screen the window is on (1
// without a window): the desktop's Chromium draws its surfaces at it, so
// the person's tab, laid out at the window's ratio, streams frames at the
// view's device pixels instead of half of them on a HiDPI screen. Not
// more: a surface of ratio 2 doubled the click-to-paint time of a view
// of ratio 1 (BenchmarkClickToPaint).
func (a *App) screenScale() float64 {
	ctx := a.context()
	if !hasWindow(ctx) {
		return 1
	}
	screens, err := runtime.ScreenGetAll(ctx)
	if err != nil {
		a.log.Warn("the screen's pixel ratio", "err", err)
		return 1
	}
	var on *runtime.Screen
	for i, s := range screens {
		if s.IsCurrent || (on == nil && s.IsPrimary) {
			on = &screens[i]
		}
	}
	scale := 1.0
	if on != nil && on.Size.Width > 0 {
		scale = max(1, float64(on.PhysicalSize.Width)/float64(on.Size.Width))
	}
	a.log.Info("the browser's surfaces at the screen's pixel ratio", "ratio", scale)
	return scale
}
