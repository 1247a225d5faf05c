package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Budget bounds a run: a cap on steps, time and cost, plus a kill
// switch.
type Budget struct {
	// Steps is each agent's limit on model turns (default 100).
	Steps int
	// Wall is the whole run's time limit (0: none).
	Wall time.Duration
	// Tokens is the whole run's token limit (0: none).
	Tokens int
	// Cost is the whole run's limit in dollars, from the price table (0:
	// none).
	Cost float64
}

// Question is an ask_user card: a question with 2 to 6 answers.
type Question struct {
	Agent    string   `json:"agent"`
	Question string   `json:"question"`
	Options  []string `json:"options"`
}

// Asker puts a question to the person and returns their answer. It blocks
// until they answer or ctx ends.
type Asker interface {
	Ask(ctx context.Context, q Question) (string, error)
}

// AskFunc adapts a function to Asker.
type AskFunc func(ctx context.Context, q Question) (string, error)

// Ask calls f.
func (f AskFunc) Ask(ctx context.Context, q Question) (string, error) { return f(ctx, q) }

// Config configures a Run.
type Config struct {
	// Files are the files the person gave the run (absolute paths): the
	// only ones an upload may send.
	Files []string
	Model *Model
	Tabs  TabProvider
	// Voice speaks messages aloud; nil is text-only.
	Voice Voice
	Clock Clock
	// Log records every event of the run (nil: none).
	Log    *RunLog
	Policy Policy
	// Confirm approves irreversible actions; nil denies them (headless)
	// unless Policy.AllowIrreversible.
	Confirm Confirmer
	// Hints are the face's words for what would allow what a headless run
	// denies; zero fields take neutral defaults.
	Hints Hints
	// Ask answers ask_user; nil tells agents nobody is there.
	Ask    Asker
	Budget Budget
	// MaxAgents limits executors running at once (default 4).
	MaxAgents int
	// MaxSpawns limits executors spawned in the whole run (default 16).
	MaxSpawns int
	Floor     FloorConfig
	// KeepCallsOnCorrection leaves in-flight model calls alone when the
	// person corrects; by default they are cancelled and re-issued with
	// the correction, so steering takes effect on the next step.
	KeepCallsOnCorrection bool
	// MaxBacklog bounds the conversation one tool result carries.
	MaxBacklog int
	// FailOnBrowserGone ends the whole run when a tab reports the browser
	// gone (ErrBrowserGone): headless, nothing relaunches it. Otherwise
	// only the agents whose tabs it held end, and the planner decides.
	FailOnBrowserGone bool
}

// Result is a run's outcome.
type Result struct {
	Summary string     `json:"summary"`
	Success bool       `json:"success"`
	Steps   int        `json:"steps"`
	Usage   Usage      `json:"usage"`
	Procs   []ProcInfo `json:"procs"`
}

// StepInfo is one executed tool call, for the UI and the log.
type StepInfo struct {
	Agent   string `json:"agent"`
	PID     int    `json:"pid,omitempty"`
	Step    int    `json:"step"`
	Tool    string `json:"tool"`
	Args    string `json:"args,omitempty"`
	Outcome string `json:"outcome"`
	Effect  bool   `json:"effect"`
	URL     string `json:"url,omitempty"`
}

// RunState is where a run is, on the event stream.
type RunState string

// Run states.
const (
	RunStarted RunState = "started"
	RunDone    RunState = "done"
	// RunFailed is a run that ended without success, killed included.
	RunFailed RunState = "failed"
)

// RunInfo reports a run's start and end on the event stream.
type RunInfo struct {
	State   RunState `json:"state"`
	Task    string   `json:"task,omitempty"`
	Summary string   `json:"summary,omitempty"`
	Success bool     `json:"success"`
}

// ErrKilled is the cause of a run stopped by its kill switch or a budget.
var ErrKilled = errors.New("run killed")

// Run is one task: a planner, its executors and their room.
type Run struct {
	cfg   Config
	clock Clock
	room  *Room
	procs *procTable
	gate  *gate
	log   *RunLog

	ctx    context.Context
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	usage Usage
	over  bool           // killed or ended: a later kill does nothing
	execs sync.WaitGroup // running executors, so Execute returns only after they stopped
}

// NewRun prepares a run; Execute starts it.
func NewRun(ctx context.Context, cfg Config) *Run {
	if cfg.Clock == nil {
		cfg.Clock = wallClock()
	}
	if cfg.Budget.Steps <= 0 {
		cfg.Budget.Steps = 100
	}
	if cfg.MaxAgents <= 0 {
		cfg.MaxAgents = 4
	}
	if cfg.MaxSpawns <= 0 {
		cfg.MaxSpawns = 16
	}
	r := &Run{cfg: cfg, clock: cfg.Clock, log: cfg.Log}
	if cfg.Tabs != nil {
		r.cfg.Tabs = faultTabs{TabProvider: cfg.Tabs, r: r}
	}
	r.ctx, r.cancel = context.WithCancelCause(ctx)
	r.room = newRoom(roomConfig{Clock: cfg.Clock, Floor: cfg.Floor, Voice: cfg.Voice, Log: cfg.Log, MaxBacklog: cfg.MaxBacklog})
	r.procs = newProcTable(cfg.MaxAgents, cfg.MaxSpawns, cfg.Clock, func(p ProcInfo) {
		r.room.publish(Event{Kind: EventProcess, Agent: p.Agent, Data: p, key: fmt.Sprintf("proc:%d", p.PID)})
	})
	r.gate = newGate(cfg.Policy, cfg.Confirm)
	r.gate.hints = cfg.Hints
	if cfg.Budget.Wall > 0 {
		t := cfg.Clock.AfterFunc(cfg.Budget.Wall, func() {
			r.overBudget(&BudgetError{Budget: "time", Limit: cfg.Budget.Wall.String()})
		})
		context.AfterFunc(r.ctx, func() { t.Stop() })
	}
	// A log that cannot be written stops the run at once (ErrRunLogWrite).
	cfg.Log.onFail(r.Fail)
	return r
}

// Room returns the run's room.
func (r *Run) Room() *Room { return r.room }

// Procs returns the process table.
func (r *Run) Procs() []ProcInfo { return r.procs.list() }

// Usage returns the run's token use so far.
func (r *Run) Usage() Usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.usage
}

// Kill stops every agent of the run: the kill switch.
func (r *Run) Kill(why string) {
	r.kill(fmt.Errorf("%w: %s", ErrKilled, why), why)
}

// BudgetError is the cause of a run stopped by one of its budgets (the
// run's wall time, tokens or cost); it wraps ErrKilled. A step budget
// stops only its agent.
type BudgetError struct {
	Budget string // time, token or cost
	Limit  string // the limit, readable
	Used   string // how much was used when it stopped, if known
}

func (e *BudgetError) Error() string {
	s := fmt.Sprintf("the %s budget of %s was used up", e.Budget, e.Limit)
	if e.Used != "" {
		s += " (" + e.Used + " used)"
	}
	return s
}

// Unwrap makes a budget stop a kill.
func (e *BudgetError) Unwrap() error { return ErrKilled }

func (r *Run) overBudget(be *BudgetError) {
	r.log.Write(LogRecord{Event: LogBudget, Text: be.Error()})
	r.kill(be, be.Error())
}

func (r *Run) kill(cause error, why string) {
	// Once per run, and never after its end; but a run whose parent
	// context already ended (the app closing) is still killed and logged.
	r.mu.Lock()
	over := r.over
	r.over = true
	r.mu.Unlock()
	if over {
		return
	}
	r.log.Write(LogRecord{Event: LogKilled, Text: why})
	r.room.Notice("run stopped: %s", why)
	r.procs.killAll(why)
	r.cancel(cause)
}

// addUsage meters one model call against the run's budget.
func (r *Run) addUsage(u Usage) {
	r.mu.Lock()
	r.usage = r.usage.Add(u)
	total := r.usage
	r.mu.Unlock()
	r.room.publish(Event{Kind: EventUsage, Data: total, key: "usage"})
	b := r.cfg.Budget
	switch {
	case b.Tokens > 0 && total.Total() > b.Tokens:
		r.overBudget(&BudgetError{Budget: "token", Limit: fmt.Sprintf("%d tokens", b.Tokens), Used: fmt.Sprintf("%d", total.Total())})
	case b.Cost > 0 && total.Cost > b.Cost:
		r.overBudget(&BudgetError{Budget: "cost", Limit: fmt.Sprintf("$%.2f", b.Cost), Used: fmt.Sprintf("$%.2f", total.Cost)})
	}
}

// Execute runs task to the planner's done, or until the run is killed.
// tabs are ids of tabs the person gave the task (drag and drop), which the
// planner may pass to spawn.
func (r *Run) Execute(ctx context.Context, task string, tabs ...string) (Result, error) {
	stop := context.AfterFunc(ctx, func() { r.Kill("cancelled") })
	defer stop()
	r.log.Write(LogRecord{Event: LogRunStart, Text: task})
	// The emails a task gives ("sign in as …") are the person's, guarded
	// like those pages show.
	r.gate.seen.saw(task)
	r.room.publish(Event{Kind: EventRun, Data: RunInfo{State: RunStarted, Task: task}})

	p := newPlanner(r, task, tabs)
	fin, err := p.run(r.ctx)
	r.mu.Lock()
	r.over = true // the run is ending: a kill now would be logged after its end
	r.mu.Unlock()
	// Whatever the planner did, no executor outlives the run: each is
	// stopped and has released its tab when Execute returns.
	r.procs.killAll("the run ended")
	r.execs.Wait()
	res := Result{Summary: fin.summary, Success: fin.success && err == nil, Steps: p.steps, Usage: r.Usage(), Procs: r.procs.list()}
	if err != nil {
		if cause := context.Cause(r.ctx); cause != nil && (errors.Is(cause, ErrKilled) || runFault(cause) ||
			errors.Is(cause, ErrBrowserGone) || errors.Is(cause, ErrRunLogWrite)) {
			err = cause
		}
		if res.Summary == "" {
			res.Summary = err.Error()
		}
	}
	ok := res.Success
	r.log.Write(LogRecord{Event: LogRunDone, Text: res.Summary, Success: &ok, Usage: &res.Usage, Error: errString(err)})
	res, err = cutLog(res, err, r.log.Err())
	ok = res.Success
	state := RunDone
	if !ok {
		state = RunFailed
	}
	r.room.publish(Event{Kind: EventRun, Data: RunInfo{State: state, Summary: res.Summary, Success: ok}})
	r.cancel(nil)
	return res, err
}

// cutLog is a run's outcome once its log failed (lerr, nil when whole):
// failed, whatever the planner said, since its record is cut. The
// planner's summary is kept, with the log's fault after it.
func cutLog(res Result, err, lerr error) (Result, error) {
	if lerr == nil {
		return res, err
	}
	res.Success = false
	switch {
	case res.Summary == "" || (err != nil && res.Summary == err.Error()):
		res.Summary = lerr.Error()
	case !strings.Contains(res.Summary, lerr.Error()):
		res.Summary += " (" + lerr.Error() + ")"
	}
	return res, lerr
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Spawn starts an executor on task: in the existing tab tabID (leasing
// it), or in a new tab at url. It is the planner's spawn tool, exposed so
// the app can start an executor on a dropped tab.
func (r *Run) Spawn(ctx context.Context, task, tabID, url string) (ProcInfo, error) {
	return r.spawn(ctx, task, tabID, url, false)
}

// Reassign moves executor pid's sub-task to the existing tab tabID (the
// person dropped the tab on its tile): a new executor takes the task up
// there, with the tab's session, and pid ends as killed with a summary that
// names its successor, so a planner waiting on pid learns where the work
// went rather than that it failed.
func (r *Run) Reassign(ctx context.Context, pid int, tabID string) (ProcInfo, error) {
	old, err := r.procs.get(pid)
	if err != nil {
		return ProcInfo{}, fmt.Errorf("reassign %d: %w", pid, err)
	}
	task := r.info(old).Task
	// The successor starts before its predecessor stops: it replaces it,
	// so the running limit does not apply, and if it cannot start the old
	// agent goes on where it was.
	p, err := r.spawn(ctx, task, tabID, "", true)
	if err != nil {
		return p, fmt.Errorf("reassign %d: %w", pid, err)
	}
	why := fmt.Sprintf("the user moved this task to tab %s: it goes on as %s (pid %d); wait for pid %d", tabID, p.Agent, p.PID, p.PID)
	r.procs.finish(old, ProcKilled, why, false)
	old.cancel()
	r.log.Write(LogRecord{Event: LogReassign, Agent: r.info(old).Agent, PID: pid, Tab: tabID, Text: why})
	return p, nil
}

// spawn registers an executor and returns its PID at once: opening or
// attaching its tab is the executor's first act, in its own goroutine, so
// the planner's spawns do not queue behind page loads. A tab
// that cannot be had ends that executor as failed, which wait reports. A
// replacing spawn (Reassign) opens its tab before it returns, since its
// predecessor goes on when the successor cannot start.
func (r *Run) spawn(ctx context.Context, task, tabID, url string, replacing bool) (ProcInfo, error) {
	if err := r.ctx.Err(); err != nil {
		return ProcInfo{}, fmt.Errorf("spawn: %w", context.Cause(r.ctx))
	}
	if url != "" {
		if err := r.gate.navigation(ctx, PlannerName, url); err != nil {
			r.log.Write(LogRecord{Event: LogPolicyDenied, Agent: PlannerName, Tool: "spawn", URL: url, Error: err.Error()})
			return ProcInfo{}, fmt.Errorf("spawn: %w", err)
		}
		r.gate.setOrigin(url)
	}
	pctx, cancel := context.WithCancel(r.ctx)
	p, err := r.procs.add(task, tabID, cancel, replacing)
	if err != nil {
		cancel()
		return ProcInfo{}, err
	}
	if replacing {
		tab, err := r.openTab(ctx, p, tabID, url)
		if err != nil {
			return r.info(p), err
		}
		r.start(pctx, p, func() (Tab, error) { return tab, nil })
		return r.info(p), nil
	}
	r.start(pctx, p, func() (Tab, error) { return r.openTab(pctx, p, tabID, url) })
	return r.info(p), nil
}

// start runs p's executor in its own goroutine, once open has given it its
// tab; a failed open has already ended p.
func (r *Run) start(ctx context.Context, p *proc, open func() (Tab, error)) {
	r.execs.Add(1)
	go func() {
		defer r.execs.Done()
		tab, err := open()
		if err != nil {
			close(p.exited) // it never held the tab
			return
		}
		r.execute(ctx, p, tab)
	}()
}

// openTab leases the existing tab tabID to p (after any finished process
// there has let go of it) or opens a new one at url, and announces p. On
// failure p ends failed, with a summary naming the error.
func (r *Run) openTab(ctx context.Context, p *proc, tabID, url string) (Tab, error) {
	name := p.info.Agent
	var tab Tab
	var err error
	if tabID != "" {
		if err = r.procs.awaitRelease(ctx, tabID); err != nil {
			err = fmt.Errorf("spawn %s: the tab's last agent did not let go of it: %w", name, err)
		} else if tab, err = r.cfg.Tabs.Attach(ctx, name, tabID); err != nil {
			err = fmt.Errorf("spawn %s: %w", name, err)
		}
	} else if tab, err = r.cfg.Tabs.Open(ctx, name, url); err != nil {
		err = fmt.Errorf("spawn %s: %w", name, err)
	}
	if err != nil {
		// Logged and announced before the process is finished: a waiter
		// woken by the end must find its cause already in the log and the
		// room, as for every other end.
		r.log.Write(LogRecord{Event: LogSpawnFailed, Agent: name, PID: p.info.PID, Text: p.info.Task, URL: url, Tab: tabID, Error: err.Error()})
		r.room.Notice("%s could not start: %s", name, clip(err.Error(), 300))
		r.procs.finish(p, ProcFailed, "could not start: "+err.Error(), false)
		p.cancel()
		return nil, err
	}
	r.procs.update(p, func(i *ProcInfo) { i.Tab = tab.ID() })
	r.log.Write(LogRecord{Event: LogSpawn, Agent: name, PID: p.info.PID, Text: p.info.Task, URL: url, Tab: tab.ID()})
	where := tab.Info()
	if url != "" && (where.URL == "" || where.URL == "about:blank") {
		// A new tab is still loading url: it is named by where it goes.
		where = TabInfo{URL: url}
	}
	r.room.Notice("%s started on %s: %s", name, where.Name(), p.info.Task)
	return tab, nil
}

func (r *Run) info(p *proc) ProcInfo {
	r.procs.mu.Lock()
	defer r.procs.mu.Unlock()
	return p.info
}

// execute runs one executor to its end and releases its tab.
func (r *Run) execute(ctx context.Context, p *proc, tab Tab) {
	defer close(p.exited) // last: after the tab is released
	defer p.cancel()
	defer r.cfg.Tabs.Release(tab, p.info.Agent)
	e := newExecutor(r, p, tab)
	fin, err := e.run(ctx)
	state := ProcDone
	switch {
	case ctx.Err() != nil:
		state = ProcKilled
		if fin.summary == "" {
			fin.summary = "stopped: " + context.Cause(ctx).Error()
		}
	case err != nil:
		state = ProcFailed
		if fin.summary == "" {
			fin.summary = err.Error()
		}
	case !fin.success:
		state = ProcFailed
	}
	r.procs.account(p, e.steps, e.usage)
	r.procs.finish(p, state, fin.summary, fin.success)
	if info := r.info(p); info.State == ProcFailed && state != ProcFailed {
		// Its tab was lost first (loseTab): that is what it ended of.
		state, fin.summary = info.State, info.Summary
	}
	ok := fin.success && state == ProcDone
	r.log.Write(LogRecord{Event: LogAgentDone, Agent: p.info.Agent, PID: p.info.PID, Text: fin.summary, Success: &ok, Usage: &e.usage, Error: errString(err)})
	verdict := "finished"
	if !ok {
		verdict = "failed"
	}
	r.room.Notice("%s %s: %s", p.info.Agent, verdict, clip(fin.summary, 300))
}

// Wait is the planner's wait tool: until any or all of pids (default:
// every unreported executor) finish, or timeout (0: none).
func (r *Run) Wait(ctx context.Context, pids []int, all bool, timeout time.Duration) (WaitResult, error) {
	return r.procs.wait(ctx, pids, all, timeout, nil)
}

// killProc is the planner's kill tool.
func (r *Run) killProc(pid int) error { return r.procs.kill(pid) }

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}
