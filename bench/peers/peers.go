package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// peerSpec is how one MCP peer is driven: the tool and the arguments of
// each operation, as its docs describe them.
type peerSpec struct {
	name     string
	open     func(url string) toolCall
	observe  func() toolCall
	click    func(ref string) toolCall
	typ      func(ref, text string) toolCall
	sel      func(ref, option string) toolCall
	find     func(text string) toolCall // nil: no search tool
	read     func() toolCall            // nil: no reading tool
	waitText func(text string) toolCall
	refs     refFinder
}

// peerEngine is a peer driven through its MCP server.
type peerEngine struct {
	spec peerSpec
	conn *mcpConn
	// fixed are arguments every call carries (chrome-devtools-mcp's
	// pageId).
	fixed map[string]any
	// after, when set, runs once the server has stopped: what it leaves
	// behind (agent-browser's daemon) is ended.
	after func() error
}

func (p *peerEngine) Name() string   { return p.spec.name }
func (p *peerEngine) ToolChars() int { return p.conn.toolChars() }

// toolCall is one tool and its arguments.
type toolCall struct {
	Name string
	Args map[string]any
}

func (p *peerEngine) do(ctx context.Context, c toolCall) (reply, error) {
	for k, v := range p.fixed {
		c.Args[k] = v
	}
	r, _, err := p.conn.call(ctx, c.Name, c.Args)
	return r, err
}

func (p *peerEngine) Open(ctx context.Context, url string) (reply, error) {
	return p.do(ctx, p.spec.open(url))
}

func (p *peerEngine) Observe(ctx context.Context) (reply, error) { return p.do(ctx, p.spec.observe()) }

func (p *peerEngine) Click(ctx context.Context, ref string) (reply, error) {
	return p.do(ctx, p.spec.click(ref))
}

func (p *peerEngine) Type(ctx context.Context, ref, text string) (reply, error) {
	return p.do(ctx, p.spec.typ(ref, text))
}

func (p *peerEngine) Select(ctx context.Context, ref, option string) (reply, error) {
	return p.do(ctx, p.spec.sel(ref, option))
}

func (p *peerEngine) Find(ctx context.Context, text string) (reply, bool, error) {
	if p.spec.find == nil {
		return reply{}, false, nil
	}
	r, err := p.do(ctx, p.spec.find(text))
	return r, true, err
}

func (p *peerEngine) Read(ctx context.Context) (reply, bool, error) {
	if p.spec.read == nil {
		return reply{}, false, nil
	}
	r, err := p.do(ctx, p.spec.read())
	return r, true, err
}

func (p *peerEngine) WaitText(ctx context.Context, text string) (reply, error) {
	return p.do(ctx, p.spec.waitText(text))
}

func (p *peerEngine) Ref(obs string, roles []string, name string) string {
	return p.spec.refs.find(obs, roles, name)
}

// Done does nothing: a peer navigates its one tab in place.
func (p *peerEngine) Done(context.Context) error { return nil }

func (p *peerEngine) Close() error {
	err := p.conn.close()
	if p.after != nil {
		err = errors.Join(err, p.after())
	}
	return err
}

// startPeer starts a peer's MCP server.
func startPeer(ctx context.Context, spec peerSpec, cmd *exec.Cmd) (*peerEngine, error) {
	cmd.Stderr = os.Stderr
	c, err := dialMCP(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return &peerEngine{spec: spec, conn: c}, nil
}

// check says whether the server offers every tool the spec calls: a
// peer's new version may rename one.
func (p *peerEngine) check() error {
	for _, tool := range p.spec.tools() {
		if !p.conn.has(tool) {
			return fmt.Errorf("%s has no tool %q (it has %s; see -tools)", p.spec.name, tool, strings.Join(p.conn.names(), ", "))
		}
	}
	return nil
}

// tools are the tools the spec calls.
func (s peerSpec) tools() []string {
	names := []string{}
	add := func(c toolCall) { names = append(names, c.Name) }
	add(s.open("u"))
	add(s.observe())
	add(s.click("r"))
	add(s.typ("r", "t"))
	add(s.sel("r", "o"))
	add(s.waitText("t"))
	if s.find != nil {
		add(s.find("t"))
	}
	if s.read != nil {
		add(s.read())
	}
	return names
}

// names are the server's tools' names.
func (c *mcpConn) names() []string {
	var out []string
	for _, t := range c.tools {
		out = append(out, t.Name)
	}
	return out
}

// args is an argument map.
type args = map[string]any

// playwrightSpec is Playwright MCP: a snapshot (the ARIA tree with refs)
// after every navigation and action; browser_find searches the snapshot.
func playwrightSpec() peerSpec {
	return peerSpec{
		name:    "Playwright MCP " + version(playwrightMCP),
		open:    func(u string) toolCall { return toolCall{"browser_navigate", args{"url": u}} },
		observe: func() toolCall { return toolCall{"browser_snapshot", args{}} },
		click:   func(r string) toolCall { return toolCall{"browser_click", args{"target": r}} },
		typ:     func(r, t string) toolCall { return toolCall{"browser_type", args{"target": r, "text": t}} },
		sel: func(r, o string) toolCall {
			return toolCall{"browser_select_option", args{"target": r, "values": []string{o}}}
		},
		find:     func(t string) toolCall { return toolCall{"browser_find", args{"text": t}} },
		waitText: func(t string) toolCall { return toolCall{"browser_wait_for", args{"text": t}} },
		refs:     refFinder{re: regexp.MustCompile(`\[ref=([^\]]+)\]`)},
	}
}

// startPlaywright runs Playwright MCP headless and isolated on the kit's
// Chromium, with the launch options in a config file (its command line
// has no switch for Chromium's own).
func startPlaywright(ctx context.Context, k kit, scratch string) (*peerEngine, error) {
	cfg := map[string]any{
		"browser": map[string]any{
			"browserName": "chromium",
			"isolated":    true,
			"launchOptions": map[string]any{
				"executablePath": k.Chromium, "headless": true, "chromiumSandbox": false, "args": chromeFlags(),
			},
		},
		"outputDir": filepath.Join(scratch, "playwright-output"),
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("playwright config: %w", err)
	}
	path := filepath.Join(scratch, "playwright-mcp.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return nil, fmt.Errorf("playwright config: %w", err)
	}
	cmd := exec.Command(k.bin("playwright-mcp"), "--config", path)
	cmd.Dir = scratch
	return startPeer(ctx, playwrightSpec(), cmd)
}
