package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// agentBrowserEnv is agent-browser's environment for the kit: its own
// session and home (so no daemon or setting of the machine's user is
// shared), the kit's Chromium with the common switches, and no version
// check (it would fetch a web page).
func agentBrowserEnv(k kit, scratch, session string) []string {
	return append(os.Environ(),
		"HOME="+filepath.Join(scratch, "agent-browser-home"),
		"AGENT_BROWSER_SESSION="+session,
		"AGENT_BROWSER_EXECUTABLE_PATH="+k.Chromium,
		"AGENT_BROWSER_ARGS="+strings.Join(chromeFlags(), ","),
		"AGENT_BROWSER_NO_VERSION_CHECK=1",
		"AGENT_BROWSER_IDLE_TIMEOUT_MS=600000",
	)
}

// agentBrowserMCPSpec is agent-browser's MCP mode with its default (core)
// tools: open answers with a line; the interactive snapshot is the look
// its docs prefer.
func agentBrowserMCPSpec() peerSpec {
	return peerSpec{
		name:    "agent-browser " + version(agentBrowser) + " MCP",
		open:    func(u string) toolCall { return toolCall{"agent_browser_open", args{"url": u}} },
		observe: func() toolCall { return toolCall{"agent_browser_snapshot", args{"interactive": true}} },
		click:   func(r string) toolCall { return toolCall{"agent_browser_click", args{"selector": r}} },
		typ:     func(r, t string) toolCall { return toolCall{"agent_browser_fill", args{"selector": r, "text": t}} },
		sel: func(r, o string) toolCall {
			return toolCall{"agent_browser_select", args{"selector": r, "values": []string{o}}}
		},
		read:     func() toolCall { return toolCall{"agent_browser_read", args{}} },
		waitText: func(t string) toolCall { return toolCall{"agent_browser_wait_for_text", args{"text": t}} },
		refs:     refFinder{re: regexp.MustCompile(`\bref=(e\d+)`), prefix: "@"},
	}
}

// startAgentBrowserMCP runs `agent-browser mcp`.
func startAgentBrowserMCP(ctx context.Context, k kit, scratch string) (*peerEngine, error) {
	cmd := exec.Command(k.agentBrowserBin(), "mcp")
	cmd.Dir = scratch
	cmd.Env = agentBrowserEnv(k, scratch, "bench-mcp")
	p, err := startPeer(ctx, agentBrowserMCPSpec(), cmd)
	if err != nil {
		return nil, err
	}
	// The server's daemon and browser outlive it (until their idle
	// timeout): the CLI's close of the same session ends them.
	cli := &cliEngine{bin: k.agentBrowserBin(), env: cmd.Env, dir: scratch}
	p.after = cli.Close
	return p, nil
}

// cliEngine is agent-browser's CLI, which its docs recommend to agents:
// every call is one command, a process that hands it to the session's
// daemon (started by the first) and prints the answer.
type cliEngine struct {
	bin  string
	env  []string
	dir  string
	refs refFinder
	// trace, when set, sees every command (-trace).
	trace func(tool string, args map[string]any, r reply, err error)
}

// startAgentBrowserCLI checks the CLI runs; its daemon and browser start
// with the first command, as for any user.
func startAgentBrowserCLI(ctx context.Context, k kit, scratch string) (*cliEngine, error) {
	c := &cliEngine{
		bin: k.agentBrowserBin(), env: agentBrowserEnv(k, scratch, "bench-cli"), dir: scratch,
		refs: refFinder{re: regexp.MustCompile(`(?:@|\bref=)(e\d+)`), prefix: "@"},
	}
	if _, err := c.run(ctx, "--version"); err != nil {
		return nil, err
	}
	return c, nil
}

// run runs one command, timed from the start of the process to its end.
func (c *cliEngine) run(ctx context.Context, a ...string) (reply, error) {
	cmd := exec.CommandContext(ctx, c.bin, a...)
	cmd.Env, cmd.Dir = c.env, c.dir
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	r := reply{Text: out.String(), Took: time.Since(start)}
	if err != nil {
		err = fmt.Errorf("agent-browser %s: %w: %s%s", strings.Join(a, " "), err, clip(r.Text, 200), clip(errOut.String(), 300))
	}
	if c.trace != nil {
		c.trace(a[0], map[string]any{"args": a[1:]}, r, err)
	}
	return r, err
}

func (c *cliEngine) Name() string   { return "agent-browser " + version(agentBrowser) + " CLI" }
func (c *cliEngine) ToolChars() int { return 0 }

func (c *cliEngine) Open(ctx context.Context, url string) (reply, error) {
	return c.run(ctx, "open", url)
}
func (c *cliEngine) Observe(ctx context.Context) (reply, error) { return c.run(ctx, "snapshot", "-i") }
func (c *cliEngine) Click(ctx context.Context, ref string) (reply, error) {
	return c.run(ctx, "click", ref)
}

func (c *cliEngine) Type(ctx context.Context, ref, text string) (reply, error) {
	return c.run(ctx, "fill", ref, text)
}

func (c *cliEngine) Select(ctx context.Context, ref, option string) (reply, error) {
	return c.run(ctx, "select", ref, option)
}

// Find: the CLI's find acts on what it finds; it does not search.
func (c *cliEngine) Find(context.Context, string) (reply, bool, error) { return reply{}, false, nil }

func (c *cliEngine) Read(ctx context.Context) (reply, bool, error) {
	r, err := c.run(ctx, "read")
	return r, true, err
}

func (c *cliEngine) WaitText(ctx context.Context, text string) (reply, error) {
	return c.run(ctx, "wait", "--text", text)
}

func (c *cliEngine) Ref(obs string, roles []string, name string) string {
	return c.refs.find(obs, roles, name)
}

// Done does nothing: open navigates the session's tab in place.
func (c *cliEngine) Done(context.Context) error { return nil }

// Close ends the session's daemon and browser.
func (c *cliEngine) Close() error {
	_, err := c.run(context.Background(), "close")
	return err
}
