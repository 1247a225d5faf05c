package app

// startSessionOnce starts the session (the browser's launch, the live
// view) once the window's page has loaded: Wails calls OnDomReady again on
// a reload, and the session must start once. Not at OnStartup: Chromium's
// launch takes both cores of a small machine for seconds, and started with
// the window it held the window's first paint back from about 1.3 s to
// 4–5 s (BenchmarkDesktopStartup, BENCHMARKS.md).
func (a *App) startSessionOnce() {
	if a.session() != nil {
		return
	}
	a.startSession()
}
