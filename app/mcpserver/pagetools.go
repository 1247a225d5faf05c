package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/agents"
)

// The page tools are the executor's (agents.PageTools), each with its
// schema from the tool table plus the tab it acts in: a tool added to the
// table is offered here too. One that is one browser action goes through
// act, as click does; the others, which look rather than act, have a
// handler each below. Arguments decode as an executor's call does, with
// the same tolerance, so the server does not hold the client to the
// schema more strictly than the model.

// pageHandler serves a call of a page tool in the client's tab d (id
// from the call); args are the call's arguments without tab. Its out is
// the structured result.
type pageHandler func(ctx context.Context, req *mcp.CallToolRequest, d *drivenTab, id, args string) (*mcp.CallToolResult, any, error)

// looker is the handler of a page tool that is not one action, and the
// schema of its structured result (nil: none).
type looker struct {
	h   pageHandler
	out *jsonschema.Schema
}

// lookers are the page tools that are not one action.
func (s *Server) lookers() map[string]looker {
	return map[string]looker{
		"observe":    {s.observe, outSchema[pageResult]()},
		"wait":       {s.wait, outSchema[waitResult]()},
		"screenshot": {s.screenshot, nil},
		"read_page":  {s.readPage, nil},
		// The downloads are the session's (Server.Downloads), whichever
		// tab is named: the client is their one holder.
		"downloads":     {s.downloads, nil},
		"read_download": {s.readDownload, nil},
	}
}

// outSchema is the schema of a structured result of type T; results are
// this package's types, which always have one.
func outSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil
	}
	return s
}

// addPageTools adds the table's page tools. A tool that is not one action
// and has no handler here is left out (TestMCPPageTools names it).
func (s *Server) addPageTools() {
	// An action's structured result (actResult) is not declared per tool:
	// the same schema on every acting tool was a third of the tool list.
	lookers := s.lookers()
	for _, def := range agents.PageTools() {
		t := &mcp.Tool{Name: def.Name, Description: def.Description, InputSchema: def.TabSchema()}
		var h pageHandler
		if def.Acting() {
			h = s.actTool(def)
		} else if l, ok := lookers[def.Name]; ok {
			h, t.Annotations = l.h, &mcp.ToolAnnotations{ReadOnlyHint: true}
			if l.out != nil {
				t.OutputSchema = l.out
			}
		} else {
			continue
		}
		s.server.AddTool(t, s.pageCall(def, h))
	}
}

// pageCall is the handler of def: the tab taken out of the arguments and
// looked up, h's result with its structured part, and an error as a
// failed tool call for the client's model to read.
func (s *Server) pageCall(def agents.ToolDef, h pageHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, out, err := func() (*mcp.CallToolResult, any, error) {
			id, args, err := def.SplitTab(string(req.Params.Arguments))
			if err != nil {
				return nil, nil, err
			}
			d, err := s.tab(id)
			if err != nil {
				return nil, nil, err
			}
			return h(ctx, req, d, id, args)
		}()
		if err != nil {
			res = &mcp.CallToolResult{}
			res.SetError(err)
			return res, nil
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		if out != nil {
			b, err := json.Marshal(out)
			if err != nil { // the results are this package's plain structs
				return nil, fmt.Errorf("%s: %w", def.Name, err)
			}
			res.StructuredContent = json.RawMessage(b)
			if res.Content == nil {
				res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
			}
		}
		return res, nil
	}
}

// actTool is the handler of an acting tool: its arguments decoded into
// the action by the table, then act.
func (s *Server) actTool(def agents.ToolDef) pageHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest, d *drivenTab, id, args string) (*mcp.CallToolResult, any, error) {
		a, _, err := def.Action(args)
		if err != nil {
			return nil, nil, err
		}
		res, out, err := s.act(ctx, req, d, id, a)
		if err != nil {
			return nil, nil, err
		}
		return res, out, nil
	}
}

func (s *Server) observe(ctx context.Context, req *mcp.CallToolRequest, d *drivenTab, id, args string) (*mcp.CallToolResult, any, error) {
	o, err := agents.ObserveOptions(args)
	if err != nil {
		return nil, nil, err
	}
	return s.page(ctx, d, o)
}

func (s *Server) wait(ctx context.Context, req *mcp.CallToolRequest, d *drivenTab, id, args string) (*mcp.CallToolResult, any, error) {
	w, timeout, err := agents.PageWait(args)
	if err != nil {
		return nil, nil, err
	}
	o, err := d.current().Wait(ctx, w, timeout)
	if err != nil {
		return nil, nil, fmt.Errorf("wait in tab %s: %w", id, err)
	}
	out := waitResult{Tab: id, Met: o.Met, Condition: o.Condition, TookMS: o.Took.Milliseconds(), Pending: o.Pending}
	text := fmt.Sprintf("waited %v until %s", o.Took.Round(time.Millisecond), o.Condition)
	if !o.Met {
		text = fmt.Sprintf("after %v, this did not happen: %s", o.Took.Round(time.Millisecond), w)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

func (s *Server) screenshot(ctx context.Context, req *mcp.CallToolRequest, d *drivenTab, id, args string) (*mcp.CallToolResult, any, error) {
	shot, err := d.current().Screenshot(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("screenshot of tab %s: %w", id, err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.ImageContent{Data: shot.Data, MIMEType: shot.MIME},
		&mcp.TextContent{Text: fmt.Sprintf("%dx%d CSS pixels of tab %s", shot.Width, shot.Height, id)},
	}}, nil, nil
}

// readPage reads the page's text through the guarded tab, so the guard
// knows what the page showed, fenced as the executor's read_page is.
func (s *Server) readPage(ctx context.Context, req *mcp.CallToolRequest, d *drivenTab, id, args string) (*mcp.CallToolResult, any, error) {
	text, err := agents.ReadPageCall(ctx, d.guard.Tab(), args)
	if err != nil {
		return nil, nil, fmt.Errorf("tab %s: %w", id, err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

// downloads lists the session's downloads, which the actions of the
// client's tabs saved into its folder.
func (s *Server) downloads(ctx context.Context, req *mcp.CallToolRequest, d *drivenTab, id, args string) (*mcp.CallToolResult, any, error) {
	text, _, err := agents.DownloadsCall(ctx, d.current())
	if err != nil {
		return nil, nil, fmt.Errorf("tab %s: %w", id, err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

// readDownload reads a page of a downloaded file's text, fenced as the
// executor's read_download is: a file is whatever a site sent.
func (s *Server) readDownload(ctx context.Context, req *mcp.CallToolRequest, d *drivenTab, id, args string) (*mcp.CallToolResult, any, error) {
	p, err := agents.ReadDownloadCall(ctx, d.current(), args)
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: p.Text}}}, nil, nil
}
