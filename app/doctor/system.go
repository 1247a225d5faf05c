package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"vroom/app/remote"
	"vroom/browser"
	"vroom/voice"
)

// The checks of this computer and its browsers: Chromium or each remote
// browser, the sound server, the data directory.

// browserRows checks where agents' tabs open: each remote browser the
// settings name, or else the Chromium on this computer. With endpoints,
// the local Chromium is not checked: no run of these settings starts one.
func browserRows(ctx context.Context, env Env) []CheckRow {
	eps := env.Settings.Browser.Endpoints
	if len(eps) == 0 {
		return []CheckRow{timed(ctx, env.Deadline, "Chromium", true, checkChromium)}
	}
	connect := remote.Options{Connect: env.Connect}.ConnectFunc()
	rows := make([]CheckRow, 0, len(eps))
	for i, raw := range eps {
		name := fmt.Sprintf("remote browser %d", i+1)
		rows = append(rows, timed(ctx, env.Deadline, name, true, func(ctx context.Context) (string, string, error) {
			return checkEndpoint(ctx, connect, raw)
		}))
	}
	return rows
}

// checkEndpoint connects to one remote browser as a run would and asks
// its version. Only browser.EndpointName's form of the address is shown:
// a token stays hidden, and the connection's own errors come redacted.
func checkEndpoint(ctx context.Context, connect func(context.Context, string, browser.Options) (*browser.Browser, error), raw string) (string, string, error) {
	name := browser.EndpointName(raw)
	fix := "start the remote browser, or correct its address (Settings → Browser, browser.endpoints in the settings file)"
	if err := browser.CheckEndpoint(raw); err != nil {
		return name, fix, err
	}
	b, err := connect(ctx, raw, browser.Options{})
	if err != nil {
		if errors.Is(err, browser.ErrEndpointVersion) {
			fix = "the address answers, but not as a DevTools server: give the browser's DevTools port (--remote-debugging-port) or its ws:// URL"
		}
		return name, fix, err
	}
	v, verr := b.Version(ctx)
	cerr := b.Close()
	if verr != nil {
		return name + " connected", fix, verr
	}
	if cerr != nil {
		return name + " answers " + v, "", fmt.Errorf("disconnecting: %w", cerr)
	}
	return name + " answers: " + v, "", nil
}

// checkChromium finds Chromium and launches it headless once.
func checkChromium(ctx context.Context) (string, string, error) {
	fix := "install Chromium (apt install chromium) or Chrome, or set VROOM_CHROME to its path"
	path, err := browser.FindChrome()
	if err != nil {
		return "", fix, err
	}
	b, err := browser.Launch(ctx, browser.Options{})
	if err != nil {
		return path, fix + "; if it is installed, run it by hand to see why it does not start", err
	}
	if err := b.Close(); err != nil {
		return path + " started", "", fmt.Errorf("closing it: %w", err)
	}
	return path + " started headless", "", nil
}

// checkSound opens the audio system and a playback device, as a run with
// voice does.
func checkSound(ctx context.Context) (string, string, error) {
	v, err := voice.New(ctx, voice.Config{Offline: true})
	if err != nil {
		return "", "start PulseAudio or PipeWire (or check PULSE_SERVER); without one, runs are text-only", err
	}
	if err := v.Close(); err != nil {
		return "playback opened", "", fmt.Errorf("closing it: %w", err)
	}
	return "playback opens", "", nil
}

// checkDataDir writes and removes a file where runs are logged.
func checkDataDir(dir string) (string, string, error) {
	fix := "make " + dir + " writable, or set VROOM_DATA_DIR to a writable directory"
	if dir == "" {
		return "", "set VROOM_DATA_DIR to a writable directory", errors.New("no data directory")
	}
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o700); err != nil {
		return dir, fix, err
	}
	f, err := os.CreateTemp(filepath.Join(dir, "runs"), ".doctor-*")
	if err != nil {
		return dir, fix, err
	}
	_, werr := f.WriteString("check\n")
	cerr := f.Close()
	rerr := os.Remove(f.Name())
	if err := errors.Join(werr, cerr, rerr); err != nil {
		return dir, fix, err
	}
	return dir + " is writable", "", nil
}
