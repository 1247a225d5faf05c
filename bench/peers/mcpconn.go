package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reply is what one call to an engine gave back: the text a model reads
// and how long the call took, as the client saw it.
type reply struct {
	Text string
	Took time.Duration
}

// chars is the reply's size in characters (not bytes: a model's budget is
// closer to characters, and the pages hold "…" and "—").
func (r reply) chars() int { return len([]rune(r.Text)) }

// ErrToolFailed is wrapped by a tool call whose result is an error.
var ErrToolFailed = errors.New("the tool reported an error")

// mcpConn is one engine's MCP server, started as a child process and
// spoken to over its stdin and stdout.
type mcpConn struct {
	session *mcp.ClientSession
	tools   []*mcp.Tool
	// asked counts the questions the server put to the client's user.
	asked atomic.Int64
	// trace, when set, sees every call (-trace).
	trace func(tool string, args map[string]any, r reply, err error)
}

// dialMCP starts cmd and opens an MCP session with it, listing its tools.
// The client supports elicitation, as Claude's and Cursor's do, and its
// user approves what a server asks (approve).
func dialMCP(ctx context.Context, cmd *exec.Cmd) (*mcpConn, error) {
	c := &mcpConn{}
	client := mcp.NewClient(&mcp.Implementation{Name: "vroom-bench-peers", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			c.asked.Add(1)
			return approve(req.Params), nil
		},
	})
	t := &mcp.CommandTransport{Command: cmd, TerminateDuration: 3 * time.Second}
	s, err := client.Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	c.session = s
	for tool, err := range s.Tools(ctx, nil) {
		if err != nil {
			return nil, errors.Join(fmt.Errorf("list the tools of %s: %w", cmd.Path, err), s.Close())
		}
		c.tools = append(c.tools, tool)
	}
	return c, nil
}

// approve is the user's yes to a form: every field that offers a choice
// gets the first that allows ("allow once"), else its first.
func approve(p *mcp.ElicitParams) *mcp.ElicitResult {
	var schema struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	b, err := json.Marshal(p.RequestedSchema)
	if err == nil {
		_ = json.Unmarshal(b, &schema) // a form without choices is accepted empty
	}
	content := map[string]any{}
	for name, prop := range schema.Properties {
		if len(prop.Enum) == 0 {
			continue
		}
		content[name] = prop.Enum[0]
		for _, v := range prop.Enum {
			if strings.HasPrefix(v, "allow") {
				content[name] = v
				break
			}
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

// has says whether the server offers the tool.
func (c *mcpConn) has(name string) bool {
	for _, t := range c.tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// toolChars is the size of the tool list a client puts before its model:
// every tool's name, description and schemas as JSON.
func (c *mcpConn) toolChars() int {
	b, err := json.Marshal(c.tools)
	if err != nil {
		return 0 // tools came from JSON; they marshal back
	}
	return len([]rune(string(b)))
}

// call calls a tool and returns its text content, timed from the request
// to the result. A result flagged as an error is an error wrapping
// ErrToolFailed, with the reply still filled.
func (c *mcpConn) call(ctx context.Context, name string, args map[string]any) (reply, *mcp.CallToolResult, error) {
	start := time.Now()
	res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	r := reply{Took: time.Since(start)}
	if err != nil {
		err = fmt.Errorf("call %s: %w", name, err)
		if c.trace != nil {
			c.trace(name, args, r, err)
		}
		return r, nil, err
	}
	r.Text = resultText(res)
	if res.IsError {
		err = fmt.Errorf("call %s: %w: %s", name, ErrToolFailed, clip(r.Text, 300))
	}
	if c.trace != nil {
		c.trace(name, args, r, err)
	}
	return r, res, err
}

// resultText is the text parts of a result joined, as a client hands them
// to its model; an image counts as nothing here (none of the measured
// calls asks for one).
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// close ends the session, which closes the server's stdin and waits for it.
func (c *mcpConn) close() error { return c.session.Close() }

// clip shortens s to n runes for an error message.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
