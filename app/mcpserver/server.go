package mcpserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/remote"
	"vroom/app/runner"
	"vroom/browser"
)

// mcpOwner leases the tabs the client drives itself: no agent can act in
// them meanwhile, and the client cannot act in an agent's.
const mcpOwner = "the MCP client"

// Errors the MCP tools return; the client's model reads the message.
var (
	// ErrNoSuchTab is returned for a tab id the client is not driving.
	ErrNoSuchTab = errors.New("no such tab: open one with the open tool")
	// ErrNoSuchRunning is returned by stop_run for a run that is not going
	// (never started here, or already over).
	ErrNoSuchRunning = errors.New("no such run is going")
)

// mcpProtocols are the protocol versions `vroom mcp` speaks: those before
// 2026-07-28. From that version on, a server may ask the client's user
// only by ending the tool call with input requests; a run's confirmations
// come while its agents work, so they need the older request mid-call
// (ServerSession.Elicit). A newer client falls back to these at connect.
var mcpProtocols = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// Env is what `vroom mcp` needs from outside; tests replace parts.
type Env struct {
	// Settings give the model server, the models and the budgets.
	Settings config.Settings
	// Key returns the API key ("" with ErrNoKey when none is set).
	Key func(ctx context.Context) (string, error)
	// DataDir holds runs/ (the run logs, served as resources).
	DataDir string
	// Browser runs the agents' tabs and the client's own; nil with
	// Endpoints.
	Browser *browser.Browser
	// Endpoints, when set, are the remote browsers the settings name:
	// every tab (the client's and its runs') opens in the least-loaded
	// one up, as in vroom run.
	Endpoints *remote.Pool
	// Files are the files an upload may send, from the client's tabs or
	// its runs (vroom mcp --file): a page that talks the client's model
	// into uploading another file gets a refusal.
	Files []string
	// MaxDownload caps one download of the client's tabs, in bytes (0:
	// runner.DefaultMaxDownload).
	MaxDownload int64
	// Edit adjusts each run's configuration (tests: a faster floor).
	Edit func(*agents.Config)
	// EditModel adjusts each run's model client (tests: a wait told
	// sooner than after 5 s).
	EditModel func(*agents.ModelConfig)
	// Log is where the server reports what no client waits for; stdout is
	// the protocol's in stdio mode, so never there.
	Log *slog.Logger
}

// Server is `vroom mcp`'s state: the runs going, for stop_run, and the
// tabs the client drives. Its lock guards those maps only.
type Server struct {
	env    Env
	ctx    context.Context // the server's life: runs and leases end with it
	server *mcp.Server
	// tabs lends the browser's tabs to the client, through the same
	// adapter the agents use (compact observations, diffs, verified input).
	tabs *runner.Tabs
	// dlDir is the session's folder, under the data dir, where the
	// client's tabs save what they download (a run saves into its own).
	dlDir string

	mu     sync.Mutex
	runs   map[string]*agents.Run // by run id
	driven map[string]*drivenTab  // by tab id
}

// New builds the server with every tool and resource. ctx is the
// server's whole life.
func New(ctx context.Context, env Env) *Server {
	if env.Log == nil {
		env.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{env: env, ctx: ctx, runs: map[string]*agents.Run{}, driven: map[string]*drivenTab{}}
	s.tabs = runner.NewTabs(ctx, env.Browser, env.Endpoints, browser.ObserveOptions{})
	if env.DataDir != "" {
		// Without a data dir the browser's own folder takes them, gone
		// when it closes: never the person's Downloads.
		s.dlDir = filepath.Join(env.DataDir, "mcp", agents.NewRunID(time.Now())+"-downloads")
		maxDL := env.MaxDownload
		if maxDL <= 0 {
			maxDL = runner.DefaultMaxDownload
		}
		s.tabs.SetDownloads(browser.DownloadOptions{Dir: s.dlDir, MaxBytes: maxDL})
	}
	s.server = mcp.NewServer(&mcp.Implementation{Name: "vroom", Title: "Vroom", Version: "1"}, &mcp.ServerOptions{
		Instructions: mcpInstructions,
		// See mcpProtocols for why not the newest.
		SupportedProtocolVersions: mcpProtocols,
		Logger:                    env.Log,
	})
	s.addRunTools()
	s.addEngineTools()
	s.addRunResources()
	return s
}

const mcpInstructions = `Vroom is a browser driven by AI agents.
run_task hands a whole task to Vroom: a planner splits it and agents work in parallel browser tabs; progress notifications report each agent starting, acting, speaking and finishing, and the result holds every agent's result. stop_run stops a run by its id (the first progress message names it).
To drive one tab yourself: open (a URL; you get the tab id and a compact observation with refs like e12), then the page tools (observe, click, type, navigate, wait, read_page, upload, drag, hover, dialog, downloads, read_download...), and close. Each action answers with a verdict (what changed) and the page's diff; one that left a dialog open says so, and dialog answers it. A popup the page opens takes the tab's view until it closes. upload sends only the files vroom mcp was started with (--file); downloads are kept in this session's folder.
Irreversible actions (pay, order, delete, send...) and leaving a run's or a tab's sites ask your user through elicitation; a client that cannot ask gets them denied, with the reason.
Past runs are resources: vroom://runs/ID.`

// Downloads is the folder the client's tabs save their downloads into:
// the session's own, under the data dir ("" without one: the browser's,
// removed when it closes).
func (s *Server) Downloads() string { return s.dlDir }

// Close stops what the server still holds: every run going (killed, so
// each logs why) and the client's tabs.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	runs := make([]*agents.Run, 0, len(s.runs))
	for _, r := range s.runs {
		runs = append(runs, r)
	}
	s.mu.Unlock()
	for _, r := range runs {
		r.Kill("vroom mcp is shutting down")
	}
	return s.closeDriven(ctx)
}
