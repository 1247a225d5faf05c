package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// options is a parsed command line.
type options struct {
	Markdown bool
	Out      string
	Reps     int
	Dir      string
	Vroom    string
	Chromium string
	Engines  []string
	Tools    bool
	Trace    bool
	// Think is the pause before each timed action: the time a model
	// takes to read one reply and send its next call.
	Think time.Duration
}

// engineIDs are the engines in the table's order, as -engines names them.
func engineIDs() []string {
	return []string{"vroom", "playwright", "devtools", "agent-browser-mcp", "agent-browser-cli"}
}

func parseArgs(args []string, stderr io.Writer) (options, error) {
	o := options{}
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.Markdown, "md", false, "write the table as Markdown (for BENCHMARKS.md)")
	fs.StringVar(&o.Out, "o", "", "write the table to this file instead of stdout")
	fs.IntVar(&o.Reps, "reps", 5, "repetitions of every action, interleaved across engines")
	fs.StringVar(&o.Dir, "dir", "", "install the peers here and keep them (default: a temporary folder, removed)")
	fs.StringVar(&o.Vroom, "vroom", "", "the vroom binary (default: build it from this module)")
	fs.StringVar(&o.Chromium, "chromium", "/usr/bin/chromium", "the Chromium every engine launches")
	engines := fs.String("engines", strings.Join(engineIDs(), ","), "the engines to run")
	fs.BoolVar(&o.Tools, "tools", false, "print each MCP engine's tools and their arguments, and stop")
	fs.BoolVar(&o.Trace, "trace", false, "log every call and the start of its reply to stderr")
	fs.DurationVar(&o.Think, "think", 0, "pause before each timed action, as a model reads the last reply before its next call (0: back to back)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.Think < 0 {
		return o, fmt.Errorf("-think must not be negative")
	}
	if o.Reps < 1 {
		return o, fmt.Errorf("-reps must be at least 1")
	}
	for _, e := range strings.Split(*engines, ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		if !contains(engineIDs(), e) {
			return o, fmt.Errorf("unknown engine %q (known: %s)", e, strings.Join(engineIDs(), ", "))
		}
		o.Engines = append(o.Engines, e)
	}
	return o, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "peers:", err)
		return 2
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "peers: "+format+"\n", a...) }
	if err := bench(ctx, o, stdout, logf); err != nil {
		fmt.Fprintln(stderr, "peers:", err)
		return 1
	}
	return 0
}
