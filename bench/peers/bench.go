package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// starter starts one engine with its scratch folder.
type starter func(ctx context.Context, k kit, scratch string) (engine, error)

// starters are the engines by their -engines id.
func starters() map[string]starter {
	return map[string]starter{
		"vroom":             func(ctx context.Context, k kit, s string) (engine, error) { return startVroom(ctx, k, s) },
		"playwright":        func(ctx context.Context, k kit, s string) (engine, error) { return startPlaywright(ctx, k, s) },
		"devtools":          func(ctx context.Context, k kit, s string) (engine, error) { return startDevtools(ctx, k, s) },
		"agent-browser-mcp": func(ctx context.Context, k kit, s string) (engine, error) { return startAgentBrowserMCP(ctx, k, s) },
		"agent-browser-cli": func(ctx context.Context, k kit, s string) (engine, error) { return startAgentBrowserCLI(ctx, k, s) },
	}
}

// prepare installs the peers and finds or builds vroom; done removes
// what was made for this run only.
func prepare(ctx context.Context, o options, logf func(string, ...any)) (kit, func(), error) {
	k := kit{Dir: o.Dir, Vroom: o.Vroom, Chromium: o.Chromium}
	done := func() {}
	if k.Dir == "" {
		dir, err := os.MkdirTemp("", "vroom-peers-")
		if err != nil {
			return k, done, fmt.Errorf("make the install folder: %w", err)
		}
		k.Dir, done = dir, func() { os.RemoveAll(dir) }
	} else if err := os.MkdirAll(k.Dir, 0o755); err != nil {
		return k, done, fmt.Errorf("make the install folder: %w", err)
	}
	if _, err := os.Stat(k.Chromium); err != nil {
		return k, done, fmt.Errorf("chromium: %w", err)
	}
	if err := install(ctx, k.Dir, logf); err != nil {
		return k, done, err
	}
	// The package ships its programs without the execute bit: its install
	// script (not run) sets it.
	if err := os.Chmod(k.agentBrowserBin(), 0o755); err != nil {
		return k, done, fmt.Errorf("agent-browser's program for this platform: %w", err)
	}
	if k.Vroom == "" {
		logf("building vroom")
		bin, commit, err := buildVroom(ctx, k.Dir)
		if err != nil {
			return k, done, err
		}
		k.Vroom, k.VroomVersion = bin, commit
	}
	return k, done, nil
}

// startAll starts the chosen engines, each with a scratch folder of its
// own under the kit's; stop closes every one started.
func startAll(ctx context.Context, o options, k kit, logf func(string, ...any)) ([]engine, func(), error) {
	var engines []engine
	stop := func() {
		for _, e := range engines {
			if err := e.Close(); err != nil {
				logf("close %s: %v", e.Name(), err)
			}
		}
	}
	for _, id := range o.Engines {
		scratch := filepath.Join(k.Dir, "scratch", id)
		if err := os.MkdirAll(scratch, 0o755); err != nil {
			stop()
			return nil, nil, fmt.Errorf("scratch for %s: %w", id, err)
		}
		logf("starting %s", id)
		e, err := starters()[id](ctx, k, scratch)
		if err != nil {
			stop()
			return nil, nil, fmt.Errorf("start %s: %w", id, err)
		}
		engines = append(engines, e)
		// With -tools, an engine whose tools changed is listed, not refused.
		if p, ok := e.(*peerEngine); ok && !o.Tools {
			if err := p.check(); err != nil {
				stop()
				return nil, nil, err
			}
		}
		if o.Trace {
			trace := func(tool string, a map[string]any, r reply, err error) {
				logf("%s %s %v: %v, %d chars, err %v\n%s", e.Name(), tool, a, r.Took.Round(time.Millisecond), r.chars(), err, clip(r.Text, 600))
			}
			if c := connOf(e); c != nil {
				c.trace = trace
			} else if c, ok := e.(*cliEngine); ok {
				c.trace = trace
			}
		}
	}
	return engines, stop, nil
}

// bench is the whole run: prepare, serve, start, measure, print.
func bench(ctx context.Context, o options, stdout io.Writer, logf func(string, ...any)) error {
	k, cleanup, err := prepare(ctx, o, logf)
	defer cleanup()
	if err != nil {
		return err
	}
	srv, err := serveFixtures()
	if err != nil {
		return err
	}
	defer srv.Close()
	engines, stop, err := startAll(ctx, o, k, logf)
	if err != nil {
		return err
	}
	defer stop()
	if o.Tools {
		for _, e := range engines {
			if c := connOf(e); c != nil {
				printTools(stdout, e.Name(), c)
			}
		}
		return nil
	}
	res, err := measure(ctx, o, engines, srv.URL, logf)
	if err != nil {
		return err
	}
	res.Chromium = chromiumVersion(ctx, k.Chromium)
	return writeTable(o, res, stdout)
}

// connOf is an engine's MCP session, or nil for a CLI.
func connOf(e engine) *mcpConn {
	switch e := e.(type) {
	case *vroomEngine:
		return e.conn
	case *peerEngine:
		return e.conn
	}
	return nil
}
