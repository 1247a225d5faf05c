package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
)

// vroomEngine is `vroom mcp`: open makes a tab and returns its id and
// observation; every other tool takes the tab.
type vroomEngine struct {
	name string
	conn *mcpConn
	tab  string
	refs refFinder
}

// startVroom starts `vroom mcp` on stdio with a throwaway settings folder
// and data folder, so no settings of the machine's user change the run,
// and the kit's Chromium.
func startVroom(ctx context.Context, k kit, scratch string) (*vroomEngine, error) {
	cmd := exec.Command(k.Vroom, "mcp")
	cmd.Env = append(os.Environ(),
		"VROOM_CHROME="+k.Chromium,
		"VROOM_CONFIG_DIR="+scratch+"/config",
		"VROOM_DATA_DIR="+scratch+"/data",
	)
	cmd.Stderr = os.Stderr
	c, err := dialMCP(ctx, cmd)
	if err != nil {
		return nil, err
	}
	name := "Vroom"
	if k.VroomVersion != "" {
		name += " " + k.VroomVersion
	}
	return &vroomEngine{name: name, conn: c, refs: refFinder{re: regexp.MustCompile(`^\s*-?\s*\[?(e\d+)\]?\s`)}}, nil
}

func (v *vroomEngine) Name() string   { return v.name }
func (v *vroomEngine) ToolChars() int { return v.conn.toolChars() }

// Open opens a tab at url, or navigates the client's tab in place where
// the server offers navigate.
func (v *vroomEngine) Open(ctx context.Context, url string) (reply, error) {
	if v.tab != "" && v.conn.has("navigate") {
		return v.tool(ctx, "navigate", map[string]any{"url": url})
	}
	r, res, err := v.conn.call(ctx, "open", map[string]any{"url": url})
	if err != nil {
		return r, err
	}
	m, _ := res.StructuredContent.(map[string]any) // absent: no tab, caught below
	tab, _ := m["tab"].(string)
	if tab == "" {
		return r, fmt.Errorf("open %s: no tab in the result", url)
	}
	v.tab = tab
	return r, nil
}

func (v *vroomEngine) tool(ctx context.Context, name string, args map[string]any) (reply, error) {
	args["tab"] = v.tab
	r, _, err := v.conn.call(ctx, name, args)
	return r, err
}

func (v *vroomEngine) Observe(ctx context.Context) (reply, error) {
	return v.tool(ctx, "observe", map[string]any{})
}

func (v *vroomEngine) Click(ctx context.Context, ref string) (reply, error) {
	return v.tool(ctx, "click", map[string]any{"ref": ref})
}

func (v *vroomEngine) Type(ctx context.Context, ref, text string) (reply, error) {
	return v.tool(ctx, "type", map[string]any{"ref": ref, "text": text})
}

func (v *vroomEngine) Select(ctx context.Context, ref, option string) (reply, error) {
	return v.tool(ctx, "select", map[string]any{"ref": ref, "option": option})
}

// Find is observe with a query, which searches the whole page.
func (v *vroomEngine) Find(ctx context.Context, text string) (reply, bool, error) {
	r, err := v.tool(ctx, "observe", map[string]any{"query": text})
	return r, true, err
}

// Read is read_page where the server has it.
func (v *vroomEngine) Read(ctx context.Context) (reply, bool, error) {
	if !v.conn.has("read_page") {
		return reply{}, false, nil
	}
	r, err := v.tool(ctx, "read_page", map[string]any{})
	return r, true, err
}

func (v *vroomEngine) WaitText(ctx context.Context, text string) (reply, error) {
	return v.tool(ctx, "wait", map[string]any{"text": text})
}

func (v *vroomEngine) Ref(obs string, roles []string, name string) string {
	return v.refs.find(obs, roles, name)
}

// Done closes the tab where every open makes a new one; with navigate,
// the tab is kept for the next page.
func (v *vroomEngine) Done(ctx context.Context) error {
	if v.tab == "" || v.conn.has("navigate") {
		return nil
	}
	_, err := v.tool(ctx, "close", map[string]any{})
	v.tab = ""
	return err
}

func (v *vroomEngine) Close() error { return v.conn.close() }
