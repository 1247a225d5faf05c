package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/agents"
	"vroom/app/runlog"
)

// Past runs are resources: vroom://runs/ID is the run's log as a timeline
// (what `vroom replay ID` prints). The list holds the runs there were when
// the server started and those it ran since; the template reaches any
// other (a run the desktop made meanwhile).

const runURIPrefix = "vroom://runs/"

// runURI names the run id's resource.
func runURI(id string) string { return runURIPrefix + id }

func (s *Server) addRunResources() {
	s.server.AddResourceTemplate(&mcp.ResourceTemplate{Name: "run", Title: "A past Vroom run",
		URITemplate: runURIPrefix + "{id}", MIMEType: "text/plain",
		Description: "A run's log as a timeline: the task, each agent's steps, what was said, the result."}, s.readRun)
	runs, err := runlog.List(s.env.DataDir)
	if err != nil {
		s.env.Log.Warn("listing past runs", "err", err)
		return
	}
	for _, rs := range runs {
		s.server.AddResource(runResource(rs), s.readRun)
	}
}

// addRunResource lists a run this server just ran; clients that listen are
// told the list changed.
func (s *Server) addRunResource(id string) {
	if rs, ok := runlog.Find(s.env.DataDir, id); ok {
		s.server.AddResource(runResource(rs), s.readRun)
	}
}

func runResource(rs runlog.Summary) *mcp.Resource {
	return &mcp.Resource{URI: runURI(rs.ID), Name: rs.ID, MIMEType: "text/plain",
		Title:       runlog.OneLine(rs.Task, 80),
		Description: fmt.Sprintf("%s, %s: %s", rs.Started.Format("2006-01-02 15:04"), rs.Outcome, runlog.OneLine(rs.Summary, 200))}
}

// readRun reads a run's log into its timeline. Only well-formed run ids
// are read (runRecords), so no URI names a file outside runs/.
func (s *Server) readRun(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, runURIPrefix)
	if !ok {
		return nil, fmt.Errorf("read %s: %w", uri, runlog.ErrBadRunID)
	}
	recs, err := runlog.Records(s.env.DataDir, id)
	if errors.Is(err, runlog.ErrNoSuchRun) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", uri, err)
	}
	var b bytes.Buffer
	if err := agents.Replay(&b, recs); err != nil {
		return nil, fmt.Errorf("read %s: %w", uri, err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: b.String()}}}, nil
}
