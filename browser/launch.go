package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// Options configures a Browser. The zero value launches a headless Chromium
// with a throwaway profile and a 1280x800 viewport.
type Options struct {
	// ExecPath is the Chromium executable; empty means FindChrome.
	ExecPath string
	// RemoteURL, when set, is a ws:// CDP endpoint (a browser farm such as
	// browserless or a Selenium Grid node) to connect to instead of
	// launching a browser.
	RemoteURL string
	// ProfileDir is a persistent user data directory (kept between runs, so
	// logins survive); empty means a throwaway profile.
	ProfileDir string
	// Headed shows browser windows; it needs a display.
	Headed bool
	// Width and Height are every tab's viewport in CSS pixels.
	Width, Height int
	// Scale is the device scale factor to emulate (default 1). Screenshots
	// are always taken at ScreenshotScale regardless of it.
	Scale float64
	// SurfaceScale is the device pixels per CSS pixel a launched
	// Chromium draws its tabs' surfaces at (default 1). Headless
	// Chromium's screencast captures the surface, not the emulated
	// device: a tab laid out at a ratio above 1 (ShowAt) still streams
	// one frame pixel per CSS pixel unless its surface is drawn at that
	// ratio. Each tab emulates its own ratio (Scale, or ShowAt's), so a
	// larger surface changes no page's devicePixelRatio, only how many
	// device pixels its frames can carry.
	SurfaceScale float64
	// ScreenshotScale is screenshot pixels per CSS pixel (default 1);
	// ClickAt takes coordinates in these pixels.
	ScreenshotScale float64
	// CallTimeout bounds any call whose context has no deadline (default 30s).
	CallTimeout time.Duration
	// SettleTimeout bounds the wait after an action (default 3s).
	SettleTimeout time.Duration
	// AllowSchemes lists URL schemes allowed besides http, https, about and
	// data, for example "file" or "chrome". javascript: is never allowed.
	AllowSchemes []string
	// DisableSiteIsolation turns off Chromium's site-per-process isolation
	// in a launched browser, so cross-site iframes share their page's
	// process. Observation works either way (out-of-process iframes are
	// attached as targets of their own); isolation stays on by default
	// because the profile may hold the person's logins.
	DisableSiteIsolation bool
	// KeepPagesForBack keeps a page navigated away from in memory, for
	// Back and Forward to restore at once (Chromium's back-forward
	// cache), in a launched browser. Every other navigation pays for it:
	// a page is kept only by giving the next document a renderer frame of
	// its own, whose compositor starts from nothing, so the navigation
	// takes about a third longer and the first input after it meets the
	// renderer still setting that frame up. Worth it where a person browses;
	// agents go forward far more often than back, and a page they return
	// to loads again.
	KeepPagesForBack bool
	// Flags are extra Chromium command-line switches.
	Flags map[string]any
	// Dialogs decides what becomes of JavaScript dialogs on tabs with no
	// policy of their own (Tab.SetDialogPolicy); nil is
	// DefaultDialogPolicy: alerts accepted and reported, the rest held.
	Dialogs DialogPolicy
	// Auth decides what becomes of a site's request for credentials that
	// nobody answered, on tabs with no policy of their own; nil is
	// DefaultAuthPolicy.
	Auth AuthPolicy
	// Downloads is where downloads go and their cap, for tabs whose holder
	// set none (Tab.SetDownloads). Without a Dir they go to a folder of
	// the browser's own, removed when it closes; never to the machine
	// user's Downloads.
	Downloads DownloadOptions
	// AskPermissions holds a page's request for a permission it has no
	// setting for, for the tab's holder to decide (Event PermissionAsked,
	// SetPermission, AnswerPermission), instead of the headless browser's
	// silent denial. Leased tabs are never held.
	AskPermissions bool
	// Logf receives diagnostic lines; nil discards them.
	Logf func(format string, args ...any)

	// resolved says RemoteURL is the WebSocket to dial as it is
	// (ConnectEndpoint resolved it): chromedp must not rewrite it.
	resolved bool
}

func (o *Options) defaults() {
	if o.Width <= 0 {
		o.Width = 1280
	}
	if o.Height <= 0 {
		o.Height = 800
	}
	if o.Scale <= 0 {
		o.Scale = 1
	}
	if o.ScreenshotScale <= 0 {
		o.ScreenshotScale = 1
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 30 * time.Second
	}
	if o.SettleTimeout <= 0 {
		o.SettleTimeout = 3 * time.Second
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
}

// disabledFeatures are the Chromium features a launched browser runs
// without, those the options turn off included.
func (o *Options) disabledFeatures() string {
	disabled := "Translate,BlinkGenPropertyTrees,MediaRouter,OptimizationHints,AutofillServerCommunication"
	if !o.KeepPagesForBack {
		disabled += ",BackForwardCache,RenderDocument"
	}
	if o.DisableSiteIsolation {
		disabled += ",SitePerProcess,IsolateOrigins"
	}
	return disabled
}

// FindChrome returns the path of a Chromium or Chrome executable: the
// VROOM_CHROME variable first, then the usual install locations of Linux,
// macOS and Windows, then the PATH.
func FindChrome() (string, error) {
	if p := os.Getenv("VROOM_CHROME"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("VROOM_CHROME=%s: %w", p, ErrNoBrowser)
		}
		return p, nil
	}
	files, names := chromePaths(runtime.GOOS, os.Getenv)
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && !st.IsDir() {
			return f, nil
		}
	}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBrowser
}

// chromePaths is where FindChrome looks on goos: install locations, in
// order, then program names for the PATH; getenv reads Windows' program
// folders. The tests find their Chromium through FindChrome too, so there
// is one list.
func chromePaths(goos string, getenv func(string) string) (files, names []string) {
	switch goos {
	case "darwin":
		files = []string{
			"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
			"/Applications/Chromium.app/Contents/MacOS/Chromium",
			"/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
			"/Applications/Brave Browser.app/Contents/MacOS/Brave Browser",
		}
	case "windows":
		for _, env := range []string{"ProgramFiles", "ProgramFiles(x86)", "LocalAppData"} {
			if dir := getenv(env); dir != "" {
				files = append(files,
					filepath.Join(dir, `Google\Chrome\Application\chrome.exe`),
					filepath.Join(dir, `Chromium\Application\chrome.exe`),
					filepath.Join(dir, `Microsoft\Edge\Application\msedge.exe`))
			}
		}
	default:
		// Debian's /usr/bin/chromium is a shell wrapper; the real binary
		// starts faster and reports errors directly.
		files = []string{
			"/usr/lib/chromium/chromium",
			"/usr/lib/chromium-browser/chromium-browser",
			"/opt/google/chrome/chrome",
			"/snap/bin/chromium",
		}
	}
	names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "msedge"}
	return files, names
}

// allocator is chromedp's allocator for the options: a remote endpoint, or
// a Chromium process with Vroom's flags.
func (b *Browser) allocator(parent context.Context) (context.Context, context.CancelFunc, error) {
	o := b.opts
	if o.RemoteURL != "" {
		ropts := []remote.Option{remote.WithDialTimeout(10 * time.Second)}
		if o.resolved {
			ropts = append(ropts, remote.NoModifyURL)
		}
		ctx, cancel := remote.NewAllocator(parent, o.RemoteURL, ropts...)
		return ctx, cancel, nil
	}
	path := o.ExecPath
	if path == "" {
		p, err := FindChrome()
		if err != nil {
			return nil, nil, err
		}
		path = p
	}
	flags := slices.Clone(chromedp.DefaultExecAllocatorOptions[:])
	disabled := o.disabledFeatures()
	if o.DisableSiteIsolation {
		flags = append(flags, chromedp.Flag("disable-site-isolation-trials", true))
	}
	flags = append(flags,
		chromedp.ExecPath(path),
		chromedp.DisableGPU,
		// A closed network: no update checks, sync, QUIC probes or
		// field trials, which otherwise retry forever.
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-features", disabled),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		// Scrollbars are hidden per tab by emulation (attach), so a
		// person's tab can show them; headless mode's flag would win.
		chromedp.Flag("hide-scrollbars", false),
		chromedp.Flag("mute-audio", true),
		chromedp.WindowSize(o.Width, o.Height),
	)
	if os.Geteuid() == 0 {
		flags = append(flags, chromedp.NoSandbox)
	}
	if o.ProfileDir != "" {
		if err := os.MkdirAll(o.ProfileDir, 0o700); err != nil {
			return nil, nil, fmt.Errorf("profile dir: %w", err)
		}
		if err := profileFree(o.ProfileDir); err != nil {
			return nil, nil, err
		}
		flags = append(flags, chromedp.UserDataDir(o.ProfileDir))
	}
	tmp, tmpFlags, err := scratch(o.ProfileDir)
	if err != nil {
		return nil, nil, err
	}
	flags = append(flags, tmpFlags...)
	profile := o.ProfileDir
	if profile == "" {
		profile = filepath.Join(tmp, "profile")
	}
	if err := stopPrediction(profile); err != nil {
		// The browser still works; pages may then open connections no
		// request hook sees (prediction.go).
		o.Logf("launch: %v", err)
	}
	if o.SurfaceScale > 1 {
		flags = append(flags, chromedp.Flag("force-device-scale-factor", strconv.FormatFloat(o.SurfaceScale, 'f', -1, 64)))
	}
	if o.Headed {
		flags = append(flags, chromedp.VisibleWindow)
	}
	for k, v := range o.Flags {
		flags = append(flags, chromedp.Flag(k, v))
	}
	ctx, cancel := chromedp.NewExecAllocator(parent, flags...)
	// The allocator's cancel returns once the process has exited.
	return ctx, func() { cancel(); removeScratch(tmp, o.Logf) }, nil
}
