package browser

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
)

// ObserveCommand runs `vroom observe [flags] URL`: it prints the compact
// observation of a page (JSON with --json), optionally writes a screenshot,
// and reports the time taken on stderr. It returns the exit code: 0 on
// success, 1 on failure, 2 on bad usage.
func ObserveCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("observe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the observation as JSON")
	shot := fs.String("screenshot", "", "write a PNG screenshot of the viewport to `FILE`")
	marks := fs.Bool("marks", false, "draw the refs on the screenshot (set-of-marks)")
	limit := fs.Int("limit", 0, "most controls to show (default 40)")
	query := fs.String("query", "", "keep controls whose name contains this")
	roles := fs.String("roles", "", "comma-separated roles to keep")
	all := fs.Bool("all", false, "every control, not the ranked frontier")
	headed := fs.Bool("headed", false, "show the browser window")
	chrome := fs.String("chrome", "", "Chromium executable (default: VROOM_CHROME or the usual places)")
	remoteURL := fs.String("remote", "", "ws:// CDP endpoint of a remote browser")
	timeout := fs.Duration("timeout", 30*time.Second, "give up after this long")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: vroom observe [flags] URL")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	url := fs.Arg(0)
	if !strings.Contains(url, ":") {
		url = "https://" + url
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	start := time.Now()
	opts := Options{ExecPath: *chrome, Headed: *headed, RemoteURL: *remoteURL}
	if strings.HasPrefix(url, "file:") {
		opts.AllowSchemes = []string{"file"}
	}
	b, err := Launch(ctx, opts)
	if err != nil {
		fmt.Fprintln(stderr, "vroom observe:", err)
		return 1
	}
	defer b.Close()
	launched := time.Since(start)
	tab, err := b.Open(ctx, url)
	if err != nil {
		fmt.Fprintln(stderr, "vroom observe:", err)
		return 1
	}
	loaded := time.Since(start) - launched
	oo := ObserveOptions{Limit: *limit, Query: *query, All: *all}
	if *roles != "" {
		oo.Roles = strings.Split(*roles, ",")
	}
	t0 := time.Now()
	o, err := tab.Observe(ctx, oo)
	if err != nil {
		fmt.Fprintln(stderr, "vroom observe:", err)
		return 1
	}
	took := time.Since(t0)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(o)
	} else {
		_, err = io.WriteString(stdout, o.Compact())
	}
	if err != nil {
		fmt.Fprintln(stderr, "vroom observe:", err)
		return 1
	}
	if *shot != "" {
		s, err := tab.Screenshot(ctx, ScreenshotOptions{Marks: *marks, Observe: oo})
		if err == nil {
			err = os.WriteFile(*shot, s.Data, 0o644)
		}
		if err != nil {
			fmt.Fprintln(stderr, "vroom observe: screenshot:", err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "observed in %.1f ms (in page %.1f ms); launch %.0f ms, load %.0f ms\n",
		float64(took.Microseconds())/1000, o.WalkMs, float64(launched.Milliseconds()), float64(loaded.Milliseconds()))
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return 1
	}
	return 0
}
