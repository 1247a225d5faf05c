package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vroom/agents"
	"vroom/app/runner"
	"vroom/browser"
)

// runTaskArgs is run_task's input.
type runTaskArgs struct {
	Task         string   `json:"task" jsonschema:"the task, in words, as you would tell a person"`
	URLs         []string `json:"urls,omitempty" jsonschema:"pages to start on: each opens in a tab the run is given"`
	Tabs         []string `json:"tabs,omitempty" jsonschema:"ids of tabs you opened with the open tool, handed to the run; they are yours again when it ends"`
	MaxAgents    int      `json:"max_agents,omitempty" jsonschema:"agents working at once, 1 to 16 (default: Vroom's settings)"`
	AllowedHosts []string `json:"allowed_hosts,omitempty" jsonschema:"hosts the agents may go to besides the run's sites without asking, e.g. example.com"`
	Files        []string `json:"files,omitempty" jsonschema:"files the agents may upload; each must be one vroom mcp was started with (--file)"`
}

// runTaskResult is run_task's structured result.
type runTaskResult struct {
	RunID   string `json:"run_id"`
	Success bool   `json:"success"`
	Summary string `json:"summary" jsonschema:"the planner's answer: the result of the whole task"`
	// Stopped says why the run was stopped before it finished (stop_run,
	// the call cancelled, a budget), empty when it ran to its end.
	Stopped string        `json:"stopped,omitempty"`
	Steps   int           `json:"steps"`
	Tokens  int           `json:"tokens"`
	CostUSD float64       `json:"cost_usd"`
	Agents  []agentResult `json:"agents" jsonschema:"each agent's sub-task and result"`
	Log     string        `json:"log" jsonschema:"the run's log, as a resource"`
}

// agentResult is one agent's part of a run.
type agentResult struct {
	PID     int    `json:"pid"`
	Agent   string `json:"agent"`
	Task    string `json:"task"`
	State   string `json:"state"`
	Success bool   `json:"success"`
	Summary string `json:"summary"`
	Steps   int    `json:"steps"`
}

type stopRunArgs struct {
	RunID string `json:"run_id" jsonschema:"the run's id, as the first progress message of run_task names it"`
}

type stopRunResult struct {
	RunID   string `json:"run_id"`
	Stopped bool   `json:"stopped"`
}

func (s *Server) addRunTools() {
	open := true
	mcp.AddTool(s.server, &mcp.Tool{Name: "run_task", Title: "Run a task with Vroom's agents",
		Description: "Runs a whole task in the browser: a planner splits it into sub-tasks and agents do them in parallel tabs. " +
			"Progress notifications report each agent starting, acting, speaking and finishing; the first names the run's id for stop_run. " +
			"Irreversible actions and leaving the run's sites ask your user (elicitation) or are denied.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: &open}}, s.runTask)
	mcp.AddTool(s.server, &mcp.Tool{Name: "stop_run", Title: "Stop a run",
		Description: "Stops a run that run_task started: every agent stops and its run_task call returns with what was done."}, s.stopRun)
}

// runTask is run_task: a run built by BuildRun, as the desktop's and vroom
// run's are, reporting its room's events as progress notifications.
func (s *Server) runTask(ctx context.Context, req *mcp.CallToolRequest, in runTaskArgs) (*mcp.CallToolResult, runTaskResult, error) {
	spec, undo, err := s.runSpec(ctx, req, in)
	if err != nil {
		return nil, runTaskResult{}, err
	}
	defer undo()
	b, err := runner.BuildRun(s.ctx, spec)
	if err != nil {
		if errors.Is(err, runner.ErrNoAPIKey) {
			err = fmt.Errorf("%w: %s", err, mcpKeyHint)
		}
		return nil, runTaskResult{}, fmt.Errorf("run_task: %w", err)
	}
	s.mu.Lock()
	s.runs[b.ID] = b.Run
	s.mu.Unlock()
	// The call's end (the client cancelled it) kills the run in order.
	res, runErr := b.Execute(ctx)
	s.mu.Lock()
	delete(s.runs, b.ID)
	s.mu.Unlock()
	if cerr := b.Close(); cerr != nil {
		s.env.Log.Warn("closing a run", "run", b.ID, "err", cerr)
	}
	s.addRunResource(b.ID)
	out := runResultOf(b.ID, res, runErr)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out.text()}}}, out, nil
}

// mcpKeyHint says where vroom mcp finds the API key.
const mcpKeyHint = "set OPENAI_API_KEY in the MCP server's environment (the client's config), or store the key in the app's Settings"

// runSpec is the run the call asks for. undo gives back what the call
// lent the run once it is over: the client's tabs, and the tabs opened at
// the urls (closed).
func (s *Server) runSpec(ctx context.Context, req *mcp.CallToolRequest, in runTaskArgs) (runner.RunSpec, func(), error) {
	st := s.env.Settings
	switch {
	case strings.TrimSpace(in.Task) == "":
		return runner.RunSpec{}, nil, errors.New("run_task: task is empty")
	case in.MaxAgents < 0 || in.MaxAgents > 16:
		return runner.RunSpec{}, nil, fmt.Errorf("run_task: max_agents must be between 1 and 16, not %d", in.MaxAgents)
	case in.MaxAgents > 0:
		st.Budgets.MaxAgents = in.MaxAgents
	}
	for _, h := range in.AllowedHosts {
		if err := agents.ValidateHost(h); err != nil {
			return runner.RunSpec{}, nil, fmt.Errorf("run_task: allowed_hosts: %w", err)
		}
	}
	for _, f := range in.Files {
		if err := agents.CheckUpload(s.env.Files, []string{f}); err != nil {
			return runner.RunSpec{}, nil, fmt.Errorf("run_task: files: %w", err)
		}
	}
	tabs, undo, err := s.lendTabs(ctx, in)
	if err != nil {
		return runner.RunSpec{}, nil, err
	}
	el := elicitor{ss: req.Session, call: ctx}
	id := agents.NewRunID(time.Now())
	p := &progress{ss: req.Session, call: ctx, token: req.Params.GetProgressToken(), runID: id, procs: map[int]string{}}
	spec := runner.RunSpec{
		ID: id, Task: in.Task, Tabs: tabs, Files: in.Files, Browser: s.env.Browser, Endpoints: s.env.Endpoints, Settings: st, Key: s.env.Key, DataDir: s.env.DataDir,
		// Leaving the run's sites asks the client's user, as irreversible
		// actions do; a client that cannot ask has both denied.
		Policy:  agents.Policy{ConfirmLeaveOrigin: true, Sites: in.AllowedHosts},
		Confirm: el,
		Events:  p.event,
		Prewarm: min(st.Budgets.MaxAgents, 3),
		// Nobody looks at the tabs the agents opened once the call returns.
		CloseTabs:        true,
		EndOnBrowserLoss: true,
		KeyHint:          mcpKeyHint,
		Edit:             s.env.Edit,
		EditModel:        s.env.EditModel,
	}
	if canElicit(req.Session) {
		spec.Ask = el // otherwise agents are told nobody is there to answer
	}
	return spec, undo, nil
}

// lendTabs gives the run its tabs: the client's own (their lease passes
// to the run until it ends) and new ones at the urls. undo takes them
// back.
func (s *Server) lendTabs(ctx context.Context, in runTaskArgs) (ids []string, undo func(), err error) {
	var lent []*drivenTab
	var opened []*browser.Tab
	undo = func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), runner.CloseGrace)
		defer cancel()
		for _, t := range opened {
			t.Close(cctx) // a tab already gone is what was wanted
		}
		for _, d := range lent {
			s.takeBack(cctx, d)
		}
	}
	for _, id := range in.Tabs {
		d, err := s.lend(id)
		if err != nil {
			undo()
			return nil, nil, fmt.Errorf("run_task: %w", err)
		}
		lent = append(lent, d)
		ids = append(ids, id)
	}
	for _, raw := range in.URLs {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			undo()
			return nil, nil, fmt.Errorf("run_task: urls: %q is not an http or https URL", raw)
		}
		t, err := s.tabs.NewTab(ctx, raw) // a remote browser's, when the settings name some
		if err != nil {
			undo()
			return nil, nil, fmt.Errorf("run_task: open %s: %w", raw, err)
		}
		opened = append(opened, t)
		ids = append(ids, t.ID())
	}
	return ids, undo, nil
}

// stopRun is stop_run: the run's kill switch.
func (s *Server) stopRun(ctx context.Context, req *mcp.CallToolRequest, in stopRunArgs) (*mcp.CallToolResult, stopRunResult, error) {
	s.mu.Lock()
	r := s.runs[in.RunID]
	s.mu.Unlock()
	if r == nil {
		return nil, stopRunResult{}, fmt.Errorf("stop_run %q: %w", in.RunID, ErrNoSuchRunning)
	}
	r.Kill("stopped by the MCP client")
	return nil, stopRunResult{RunID: in.RunID, Stopped: true}, nil
}

// runResultOf is the call's result from the run's.
func runResultOf(id string, res agents.Result, err error) runTaskResult {
	out := runTaskResult{RunID: id, Success: res.Success, Summary: res.Summary, Steps: res.Steps,
		Tokens: res.Usage.Total(), CostUSD: res.Usage.Cost, Agents: []agentResult{}, Log: runURI(id)}
	if errors.Is(err, agents.ErrKilled) {
		out.Stopped = err.Error()
	} else if err != nil && out.Summary == "" {
		out.Summary = err.Error()
	}
	for _, p := range res.Procs {
		out.Agents = append(out.Agents, agentResult{PID: p.PID, Agent: p.Agent, Task: p.Task, State: string(p.State),
			Success: p.Success, Summary: p.Summary, Steps: p.Steps})
	}
	return out
}

// text is the result for a reader: the outcome, then an agent a line.
func (r runTaskResult) text() string {
	var b strings.Builder
	state := "failed"
	switch {
	case r.Stopped != "":
		state = "stopped (" + r.Stopped + ")"
	case r.Success:
		state = "done"
	}
	fmt.Fprintf(&b, "Run %s %s: %s\n", r.RunID, state, r.Summary)
	for _, a := range r.Agents {
		fmt.Fprintf(&b, "- %s (pid %d, %s after %d steps) on %q: %s\n", a.Agent, a.PID, a.State, a.Steps, a.Task, a.Summary)
	}
	fmt.Fprintf(&b, "Log: %s", r.Log)
	return b.String()
}

// progress turns a run's events into the call's progress notifications,
// in order (BuildRun's Events hook runs in one goroutine). The meters (the
// floor, token counts) are left out; a process is reported when its state
// or tab changes.
type progress struct {
	ss    *mcp.ServerSession
	call  context.Context // over HTTP, the notification goes on this call's stream
	token any             // nil: the client asked for no progress
	runID string
	n     float64
	procs map[int]string
}

func (p *progress) event(e agents.Event) error {
	msg, ok := p.message(e)
	if !ok || p.token == nil {
		return nil
	}
	p.n++
	err := p.ss.NotifyProgress(p.call, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: p.n, Message: msg})
	if err != nil {
		return fmt.Errorf("progress notification: %w", err)
	}
	return nil
}

// message is e in words, false for what is not reported.
func (p *progress) message(e agents.Event) (string, bool) {
	switch d := e.Data.(type) {
	case agents.Usage, agents.FloorState:
		return "", false
	case agents.ProcInfo:
		k := string(d.State) + " " + d.Tab
		if p.procs[d.PID] == k {
			return "", false
		}
		p.procs[d.PID] = k
	case agents.RunInfo:
		return "run " + p.runID + ": " + strings.TrimPrefix(agents.FormatEvent(e), "run "), true
	}
	return agents.FormatEvent(e), true
}
