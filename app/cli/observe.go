package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"vroom/browser"
)

// observeFlags is `vroom observe`'s command line.
type observeFlags struct {
	url        string
	json       bool
	screenshot string
	marks      bool
	observe    browser.ObserveOptions
	browser    browser.Options
	// remote is a remote browser's endpoint (--remote), in any form the
	// remote browsers setting takes; empty launches one here.
	remote  string
	timeout time.Duration
}

// parseObserveFlags reads the flags and the one URL. ok is false when the
// usage was wrong; the flag package has already said why on stderr.
func parseObserveFlags(args []string, stderr io.Writer) (observeFlags, bool) {
	var f observeFlags
	fs := flag.NewFlagSet("observe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&f.json, "json", false, "print the observation as JSON")
	fs.StringVar(&f.screenshot, "screenshot", "", "write a PNG screenshot of the viewport to `FILE`")
	fs.BoolVar(&f.marks, "marks", false, "draw the refs on the screenshot (set-of-marks)")
	fs.IntVar(&f.observe.Limit, "limit", 0, "most controls to show (default 40)")
	fs.StringVar(&f.observe.Query, "query", "", "keep controls whose name contains this")
	roles := fs.String("roles", "", "comma-separated roles to keep")
	fs.BoolVar(&f.observe.All, "all", false, "every control, not the ranked frontier")
	fs.BoolVar(&f.browser.Headed, "headed", false, "show the browser window")
	fs.StringVar(&f.browser.ExecPath, "chrome", "", "Chromium executable (default: VROOM_CHROME or the usual places)")
	fs.StringVar(&f.remote, "remote", "", "a remote browser to observe in instead of launching one: ws://host:port/devtools/browser/ID, wss://host?token=KEY, or http://host:port (its /json/version names the WebSocket)")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "give up after this long")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: vroom observe [flags] URL")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return f, false
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return f, false
	}
	if f.remote != "" {
		if err := browser.CheckEndpoint(f.remote); err != nil {
			fmt.Fprintln(stderr, "vroom observe: --remote:", err)
			return f, false
		}
	}
	if *roles != "" {
		f.observe.Roles = strings.Split(*roles, ",")
	}
	f.url = fs.Arg(0)
	if !strings.Contains(f.url, ":") {
		f.url = "https://" + f.url
	}
	if strings.HasPrefix(f.url, "file:") {
		f.browser.AllowSchemes = []string{"file"}
	}
	return f, true
}

// Observe is `vroom observe [flags] URL`: the page as Vroom's agents see
// it. It prints the compact observation (JSON with --json), optionally
// writes a screenshot, and reports the time taken on stderr. It returns the
// exit code: 0 on success, 1 on failure, 2 on bad usage.
func Observe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, ok := parseObserveFlags(args, stderr)
	if !ok {
		return 2
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	if err := observePage(ctx, f, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "vroom observe:", err)
		return 1
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return 1
	}
	return 0
}

// observePage launches a browser (or connects to the remote one), opens
// the page, and prints what an agent would see of it.
func observePage(ctx context.Context, f observeFlags, stdout, stderr io.Writer) (err error) {
	start := time.Now()
	b, err := f.connect(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := b.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close the browser: %w", cerr)
		}
	}()
	launched := time.Since(start)
	tab, err := b.Open(ctx, f.url)
	if err != nil {
		return err
	}
	if f.remote != "" {
		// Disconnecting leaves a remote browser's tabs open: this one is
		// ours to close.
		defer func() {
			if cerr := tab.Close(context.WithoutCancel(ctx)); cerr != nil && err == nil {
				err = fmt.Errorf("close the tab: %w", cerr)
			}
		}()
	}
	loaded := time.Since(start) - launched
	t0 := time.Now()
	o, err := tab.Observe(ctx, f.observe)
	if err != nil {
		return err
	}
	took := time.Since(t0)
	if err := printObservation(stdout, o, f.json); err != nil {
		return err
	}
	if f.screenshot != "" {
		s, err := tab.Screenshot(ctx, browser.ScreenshotOptions{Marks: f.marks, Observe: f.observe})
		if err == nil {
			err = os.WriteFile(f.screenshot, s.Data, 0o644)
		}
		if err != nil {
			return fmt.Errorf("screenshot: %w", err)
		}
	}
	fmt.Fprintf(stderr, "observed in %.1f ms (in page %.1f ms); launch %.0f ms, load %.0f ms\n",
		float64(took.Microseconds())/1000, o.WalkMs, float64(launched.Milliseconds()), float64(loaded.Milliseconds()))
	return nil
}

// connect is the browser to observe in: --remote's through
// browser.ConnectEndpoint, as the remote browsers setting is (a token kept
// and never printed, an http:// address resolved through /json/version),
// else one launched here.
func (f observeFlags) connect(ctx context.Context) (*browser.Browser, error) {
	if f.remote == "" {
		return browser.Launch(ctx, f.browser)
	}
	return browser.ConnectEndpoint(ctx, f.remote, f.browser)
}

func printObservation(w io.Writer, o *browser.Observation, asJSON bool) error {
	if !asJSON {
		_, err := io.WriteString(w, o.Compact())
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(o)
}
