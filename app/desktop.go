package app

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// WindowTitle is the desktop window's title; tests find the window by it.
const WindowTitle = "Vroom"

// RunDesktop opens the Vroom window and blocks until it closes or ctx ends.
// SIGINT and SIGTERM close it the same way the window's close button does,
// so every resource (the browser, agents, audio) is released before the
// process exits: Wails' own signal handler quits the GTK loop, which runs
// OnShutdown. We must not quit it a second time on the same signal — two
// gtk_main_quit calls race the loop's end and crash in cgo.
func RunDesktop(ctx context.Context, a *App, assets fs.FS) (err error) {
	defer func() {
		// GTK that cannot open the display panics in Wails' frontend
		// ("failed to init GTK") instead of returning: a display that
		// checkDisplay found answering but GTK could not use still ends
		// as one line, not a stack trace.
		p := recover()
		switch {
		case p == nil:
		case strings.Contains(fmt.Sprint(p), "GTK"):
			err = fmt.Errorf("%w: %v", ErrNoDisplay, p)
		default:
			err = fmt.Errorf("run desktop: %v", p)
		}
	}()
	err = wails.Run(&options.App{
		Title:     WindowTitle,
		Width:     1280,
		Height:    800,
		MinWidth:  800,
		MinHeight: 520,
		AssetServer: &assetserver.Options{
			Assets: assets,
		},
		BackgroundColour: &options.RGBA{R: 17, G: 19, B: 24, A: 255},
		OnStartup: func(wctx context.Context) {
			a.mu.Lock()
			if a.emitter == nil {
				a.emitter = EmitterFunc(func(name string, data any) { runtime.EventsEmit(wctx, name, data) })
			}
			a.mu.Unlock()
			// The browser starts once the page has loaded (OnDomReady),
			// in the background: the window does not wait for it.
			a.startup(wctx)
			go func() {
				select {
				case <-ctx.Done():
					runtime.Quit(wctx)
				case <-wctx.Done():
				}
			}()
		},
		// The session (the browser's launch, the live view) starts once
		// the window's page has loaded, not at OnStartup: Chromium's launch
		// takes both cores of a small machine for seconds, and started
		// with the window it held the window's first paint back from about
		// 1.3 s to 4–5 s (BenchmarkDesktopStartup, BENCHMARKS.md). Wails
		// calls this again on a reload; startSession starts one session.
		OnDomReady: func(context.Context) { a.startSession() },
		OnShutdown: func(context.Context) { a.shutdown() },
		Bind:       []any{a},
		// Files dropped on the omnibox are the next run's (droppedfiles.go).
		DragAndDrop: &options.DragAndDrop{EnableFileDrop: true},
		Linux: &linux.Options{
			ProgramName:      "vroom",
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
	if err != nil {
		return fmt.Errorf("run desktop: %w", err)
	}
	return nil
}

// shutdownGrace bounds closing: the run is killed and the browser closed
// within it, so SIGTERM leaves nothing running within 2 s.
const shutdownGrace = 1500 * time.Millisecond

// shutdown releases what startup acquired.
func (a *App) shutdown() { a.stopSession(shutdownGrace) }
