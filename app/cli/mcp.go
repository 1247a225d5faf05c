package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"

	"vroom/app/config"
	"vroom/app/mcpserver"
	"vroom/app/remote"
	"vroom/app/runner"
	"vroom/browser"
)

const mcpUsage = `usage: vroom mcp [flags]

Serves Vroom to MCP clients (Claude Desktop, Claude Code, Cursor...):
run_task runs a whole task with Vroom's agents, and open, close and the
executors' page tools (observe, click, type, navigate, upload, drag,
dialog, downloads, read_download...) drive one tab. Uploads send only the
files given with --file; downloads go to DATA/mcp/ID-downloads, this
session's own folder. Past runs are resources (vroom://runs/ID).

By default it speaks MCP on stdin and stdout, as a client starts it. With
--http it serves streamable HTTP on a loopback address instead, and prints
the URL and a bearer token every request must carry.

Settings come from the settings file (the app's); the API key is
OPENAI_API_KEY, else the one in the system keyring. Tabs open where the
settings say, as for vroom run: in the remote browsers they name (or
--browser), each new tab in the least-loaded one up, else in a Chromium
started here. Logs go to stderr.

flags:
`

// mcpOptions is a parsed `vroom mcp` command line.
type mcpOptions struct {
	HTTP         string
	BaseURL      string
	Model        string
	PlannerModel string
	Profile      string
	ShowBrowser  bool
	// Browsers are remote browsers' CDP endpoints (--browser, or the
	// settings' list); empty: a Chromium on this computer.
	Browsers []string
	// Files are the files a client's tabs and runs may upload (--file).
	Files []string
}

func parseMCPArgs(args []string, st config.Settings, stderr io.Writer) (mcpOptions, error) {
	o := mcpOptions{}
	fs := commandFlags("vroom mcp", mcpUsage, stderr)
	fs.StringVar(&o.HTTP, "http", "", "serve streamable HTTP on this loopback address (127.0.0.1:0 picks a port) instead of stdio")
	modelFlags(fs, st, &o.BaseURL, &o.Model, &o.PlannerModel)
	fs.StringVar(&o.Profile, "profile", "ephemeral", "browser profile: ephemeral (throwaway) or persistent (keeps logins; not while the desktop app is open)")
	fs.BoolVar(&o.ShowBrowser, "show-browser", false, "show the browser window (needs a display)")
	o.Browsers = slices.Clone(st.Browser.Endpoints)
	fs.Func("browser", browserFlagUsage, browsersFlag(&o.Browsers))
	fs.Func("file", "a file uploads may send, e.g. ~/cv.pdf (repeatable); no other file can be sent", fileFlag(&o.Files))
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.Profile != "persistent" && o.Profile != "ephemeral":
		return o, fmt.Errorf("--profile must be persistent or ephemeral, not %q", o.Profile)
	}
	if o.HTTP != "" {
		if err := loopbackAddr(o.HTTP); err != nil {
			return o, fmt.Errorf("--http: %w", err)
		}
	}
	if err := config.ValidateBaseURL(o.BaseURL); err != nil {
		return o, fmt.Errorf("--base-url: %w", err)
	}
	return o, checkBrowsers(o.Browsers)
}

// ErrNotLoopback is returned for an --http address other machines could
// reach: the token is the only guard, and it travels in the clear.
var ErrNotLoopback = errors.New("only a loopback address (127.0.0.1, ::1, localhost) may be served")

func loopbackAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%q: %w", addr, ErrNotLoopback)
	}
	return nil
}

// MCP is `vroom mcp`.
func MCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	env, err := defaultRunEnv()
	if err != nil {
		fmt.Fprintln(stderr, "vroom mcp:", err)
		return 1
	}
	o, err := parseMCPArgs(args, env.Settings, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return badUsage(stderr, "vroom mcp", err)
	}
	st := env.Settings
	st.BaseURL, st.PlannerModel, st.ExecutorModel = o.BaseURL, o.PlannerModel, o.Model
	b, pool, done, err := o.browsers(ctx, env.DataDir, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "vroom mcp:", err)
		return 1
	}
	defer done()
	// Warnings only: a client shows the server's stderr to its user.
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s := mcpserver.New(ctx, mcpserver.Env{Settings: st, Key: env.Key, DataDir: env.DataDir, Browser: b, Endpoints: pool, Log: log, Files: o.Files})
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), runner.CloseGrace)
		defer cancel()
		if err := s.Close(cctx); err != nil {
			fmt.Fprintln(stderr, "vroom mcp:", err)
		}
	}()
	if o.HTTP != "" {
		err = s.ListenHTTP(ctx, o.HTTP, stdout)
	} else {
		err = s.ServeStdio(ctx, stdin, stdout)
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "vroom mcp:", err)
		return 1
	}
	return 0
}

// browsers is where vroom mcp's tabs open, the client's and its runs',
// chosen as vroom run chooses (runBrowsers): the remote browsers of
// --browser or the settings, connected at start (connectEndpoints), else
// a Chromium launched here. Either outlives ctx's cancellation by the
// grace, so runs close their tabs; done closes what was opened.
func (o mcpOptions) browsers(ctx context.Context, dataDir string, stderr io.Writer) (*browser.Browser, *remote.Pool, func(), error) {
	if len(o.Browsers) > 0 {
		pool, done, err := connectEndpoints(ctx, o.Browsers, "vroom mcp", stderr)
		return nil, pool, done, err
	}
	bo := browser.Options{Headed: o.ShowBrowser}
	if o.Profile == "persistent" {
		bo.ProfileDir = filepath.Join(dataDir, "profile")
	}
	b, err := browser.Launch(context.WithoutCancel(ctx), bo)
	if err != nil {
		return nil, nil, nil, err
	}
	return b, nil, func() { closeBrowser(b, stderr) }, nil
}
