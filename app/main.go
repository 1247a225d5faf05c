package app

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"

	"vroom/app/cli"
	"vroom/app/config"
)

const usage = `usage:
  vroom                    open the Vroom window
  vroom run [flags] TASK   run a task headless, printing each event (see vroom run -h)
  vroom replay RUN         print a past run as a timeline
  vroom doctor             check the model server, key, Chromium, sound and data directory (see vroom doctor -h)
  vroom mcp [--http ADDR]  serve Vroom to MCP clients (see vroom mcp -h)
  vroom observe URL        print a page as Vroom's agents see it (see vroom observe -h)
`

// Main runs the command line: with no arguments it opens the desktop app,
// otherwise it runs a subcommand. It returns the process exit code: 0 on
// success, 1 on failure, 2 on bad usage.
func Main(ctx context.Context, args []string, assets fs.FS, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return runApp(ctx, assets, stderr)
	}
	switch args[0] {
	case "observe":
		return cli.Observe(ctx, args[1:], stdout, stderr)
	case "run":
		return cli.Run(ctx, args[1:], stdout, stderr)
	case "replay":
		return cli.Replay(ctx, args[1:], stdout, stderr)
	case "doctor":
		return cli.Doctor(ctx, args[1:], stdout, stderr)
	case "mcp":
		return cli.MCP(ctx, args[1:], os.Stdin, stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "vroom: unknown command %q\n%s", args[0], usage)
		return 2
	}
}

func runApp(ctx context.Context, assets fs.FS, stderr io.Writer) int {
	if err := checkDisplay(os.Getenv); err != nil && !generatingBindings {
		// One line, no stack trace: it is a setup question.
		fmt.Fprintln(stderr, "vroom:", err)
		return 1
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	path, err := config.DefaultPath()
	if err != nil {
		fmt.Fprintln(stderr, "vroom:", err)
		return 1
	}
	a := New(Options{Store: config.Store{Path: path}, Log: log})
	if err := RunDesktop(ctx, a, assets); err != nil {
		fmt.Fprintln(stderr, "vroom:", err)
		return 1
	}
	return 0
}
