package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"vroom/agents"
	"vroom/app/runner"
	"vroom/voice"
)

// activeRun is the run in progress (or the last one, ended).
type activeRun struct {
	id      string
	task    string
	attach  []string
	built   *runner.BuiltRun
	run     *agents.Run  // built.Run
	tabs    *runner.Tabs // built.Tabs
	voice   *voice.Voice // built.Voice; nil: text-only
	started time.Time
	done    chan struct{}
	mic     micMeter

	mu      sync.Mutex
	ended   time.Time
	state   RunStatus
	stop    StopReason
	summary string
	heldBy  map[string]string // tab id → agent, while the person has taken it over
}

// StartRun starts a run on task, its executors working in the tabs the
// person attached (by id) where the planner chooses to. It returns the
// run's id at once; the run reports through EventRoom and EventRun.
func (a *App) StartRun(task string, tabs []string) (string, error) {
	return a.startRun(task, tabs, nil)
}

// startRun is StartRun with the files the person gave the run.
func (a *App) startRun(task string, tabs, files []string) (string, error) {
	task = strings.TrimSpace(task)
	if task == "" {
		return "", errors.New("start run: the task is empty")
	}
	// A task typed before the window reported its page loaded starts the
	// session itself; the run then waits for the browser like any other.
	s := a.startSession()
	if s == nil {
		return "", fmt.Errorf("start run: %w", ErrBrowserNotReady)
	}
	if err := s.reserveRun(); err != nil {
		return "", err
	}
	// Building takes seconds (the keyring, the audio probe): it runs with
	// the run slot reserved, but no lock held, so every binding answers.
	r, err := a.buildRun(s, task, tabs, files)
	if err == nil {
		err = s.installRun(r)
	} else {
		s.releaseRun()
	}
	if err != nil {
		if r != nil {
			a.closeBuilt(r)
		}
		return "", fmt.Errorf("start run: %w", err)
	}
	emit(a, EventRun, r.view())
	a.log.Info("run started", "id", r.id, "task", task, "tabs", tabs)
	go a.runToEnd(s, r)
	return r.id, nil
}

// reserveRun claims the session's one run slot while a run is built.
func (s *session) reserveRun() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.starting || (s.run != nil && s.run.isRunning()) {
		return ErrRunActive
	}
	s.starting = true
	return nil
}

// releaseRun gives the slot back after a run failed to build.
func (s *session) releaseRun() {
	s.mu.Lock()
	s.starting = false
	s.mu.Unlock()
}

// installRun makes r the session's run, unless Vroom began closing while
// it was built.
func (s *session) installRun(r *activeRun) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starting = false
	if s.closing {
		return ErrClosing
	}
	s.run = r
	return nil
}

// buildRun checks the attached tabs and builds the run from the settings.
func (a *App) buildRun(s *session, task string, tabs, files []string) (*activeRun, error) {
	ctx, cancel := context.WithTimeout(a.context(), browserWait)
	defer cancel()
	b, err := a.waitBrowser(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range tabs {
		t, err := b.Tab(id)
		if err != nil {
			return nil, fmt.Errorf("attached tab: %w", err)
		}
		if o := t.Info().Owner; o != "" {
			return nil, fmt.Errorf("tab %q is held by %s", t.Info().Title, o)
		}
	}
	if err := checkRunFiles(files); err != nil {
		return nil, err
	}
	dir, err := a.dataDir()
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	st := a.settings
	a.mu.Unlock()
	remote, err := a.remoteBrowsers(s, st.Browser)
	if err != nil {
		return nil, err
	}
	r := &activeRun{id: agents.NewRunID(time.Now()), task: task, attach: tabs, done: make(chan struct{}), state: RunRunning}
	built, err := runner.BuildRun(s.ctx, runner.RunSpec{
		ID: r.id, Task: task, Tabs: tabs, Files: files, Browser: b, Endpoints: remote, Settings: st, DataDir: dir, Voice: !a.opts.TextOnly,
		Key: func(ctx context.Context) (string, error) {
			k, _, err := a.secrets.APIKey(ctx)
			return k, err
		},
		Confirm: agents.ConfirmFunc(func(ctx context.Context, c agents.Confirmation) (agents.Decision, error) {
			return a.confirm(ctx, r.id, c)
		}),
		Ask:    agents.AskFunc(func(ctx context.Context, q agents.Question) (string, error) { return a.ask(ctx, r.id, q) }),
		Heard:  func(said string) bool { return a.answerByVoice(r, said) },
		Events: func(e agents.Event) error { emit(a, EventRoom, e); return nil },
		Warn:   func(err error) { a.log.Warn("the run is text-only", "err", err) },
		Edit:   a.opts.EditRun,
		Hints:  agents.Hints{LeaveSites: func(string) string { return `"Ask before an agent leaves the run's sites" is off in Settings` }},
	})
	if errors.Is(err, runner.ErrNoAPIKey) {
		return nil, fmt.Errorf("%w: add one in Settings (or set OPENAI_API_KEY), or point the base URL at a local server", err)
	}
	if err != nil {
		return nil, err
	}
	r.built, r.run, r.tabs, r.voice, r.started = built, built.Run, built.Tabs, built.Voice, time.Now()
	return r, nil
}

// closeBuilt releases a run that was built but never started.
func (a *App) closeBuilt(r *activeRun) {
	if err := r.built.Close(); err != nil {
		a.log.Warn("closing a run that did not start", "id", r.id, "err", err)
	}
}

// runToEnd executes r, releases what it held and tells the UI how it
// ended.
func (a *App) runToEnd(s *session, r *activeRun) {
	res, err := r.built.Execute(s.ctx)
	// Close drains the room first: its last event (the run's end) reaches
	// the UI before the run's state does.
	cerr := r.built.Close()
	r.finish(res, err, cerr)
	close(r.done)
	a.cards.closeRun(r.id)
	if cerr != nil {
		a.log.Warn("run ended with errors", "id", r.id, "err", cerr)
		emit(a, EventNotice, "The run "+r.id+" ended with a problem: "+cerr.Error())
	}
	emit(a, EventRun, r.view())
	a.emitTabs()
	a.log.Info("run ended", "id", r.id, "state", r.state)
}

// finish records how the run ended: its state, why it stopped, and its
// summary, which also says when the run log may be incomplete.
func (r *activeRun) finish(res agents.Result, err, closeErr error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = time.Now()
	r.summary = res.Summary
	r.state = RunDone
	if err != nil || !res.Success {
		r.state = RunFailed
	}
	var be *agents.BudgetError
	switch {
	case errors.As(err, &be):
		r.stop, r.summary = StopBudget, "Stopped: "+be.Error()+". Budgets are in Settings."
	case errors.Is(err, agents.ErrKilled):
		r.stop = StopKilled
	case errors.Is(err, agents.ErrRunLogWrite):
		hint := runner.RunLogHint(err)
		r.stop, r.summary = StopRunLog, "Stopped: "+res.Summary+". "+strings.ToUpper(hint[:1])+hint[1:]+"."
		return // the summary says the log is cut
	}
	if errors.Is(closeErr, runner.ErrRunLogIncomplete) {
		r.summary = strings.TrimSpace(r.summary + " (The run log may be incomplete: it could not be written whole.)")
	}
}

func (r *activeRun) isRunning() bool {
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

func (r *activeRun) view() RunView {
	r.mu.Lock()
	v := RunView{ID: r.id, Task: r.task, State: r.state, Stop: r.stop, Summary: r.summary, Started: r.started, Ended: r.ended, Tabs: r.attach}
	r.mu.Unlock()
	v.Procs = r.run.Procs()
	if v.Procs == nil {
		v.Procs = []agents.ProcInfo{}
	}
	v.Usage = r.run.Usage()
	v.Transcript = r.run.Room().Transcript()
	if v.Transcript == nil {
		v.Transcript = []agents.Entry{}
	}
	v.Muted = r.run.Room().Muted()
	return v
}

func (a *App) currentRun() *activeRun {
	s := a.session()
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.run
}

// runningRun is the active run, or ErrNoRun when there is none going.
func (a *App) runningRun() (*activeRun, error) {
	r := a.currentRun()
	if r == nil || !r.isRunning() {
		return nil, ErrNoRun
	}
	return r, nil
}

// Run returns the active (or last) run's state; nil when there was none.
func (a *App) Run() *RunView {
	r := a.currentRun()
	if r == nil {
		return nil
	}
	v := r.view()
	return &v
}

// StopRun is the kill switch: every agent of the active run stops.
func (a *App) StopRun() error {
	r, err := a.runningRun()
	if err != nil {
		return err
	}
	r.run.Kill("stopped by the user")
	return nil
}

// Correct sends the person's typed correction to every agent of the run.
func (a *App) Correct(text string) error {
	text = strings.TrimSpace(text)
	if text == "" {
		return errors.New("the correction is empty")
	}
	r, err := a.runningRun()
	if err != nil {
		return err
	}
	r.run.Room().UserSays(text)
	return nil
}

// HandTab gives the tab id to the agent pid (a tab dropped on its tile):
// the agent stops where it is and a new executor continues its sub-task in
// that tab, with whatever session the tab holds. A tab someone else holds
// is refused, naming the holder.
func (a *App) HandTab(pid int, tabID string) (agents.ProcInfo, error) {
	r, err := a.runningRun()
	if err != nil {
		return agents.ProcInfo{}, err
	}
	b, err := a.browserNow()
	if err != nil {
		return agents.ProcInfo{}, err
	}
	t, err := b.Tab(tabID)
	if err != nil {
		return agents.ProcInfo{}, fmt.Errorf("hand tab: %w", err)
	}
	var task string
	running := false
	for _, p := range r.run.Procs() {
		if p.PID == pid {
			task = p.Task
			if p.Tab == tabID {
				return p, nil
			}
			if o := t.Info().Owner; o != "" {
				return agents.ProcInfo{}, fmt.Errorf("hand tab: %s is working in it", o)
			}
			running = !p.State.Finished()
		}
	}
	if task == "" {
		return agents.ProcInfo{}, fmt.Errorf("hand tab: %w: %d", agents.ErrNoProcess, pid)
	}
	ctx, cancel := context.WithTimeout(a.context(), browserWait)
	defer cancel()
	p, err := a.handTo(ctx, r, pid, task, tabID, running)
	if err != nil {
		return p, fmt.Errorf("hand tab: %w", err)
	}
	return p, nil
}

// handTo moves a running agent's task to tabID (the planner waiting on pid
// is told where its work went), or retries a finished agent's task there.
func (a *App) handTo(ctx context.Context, r *activeRun, pid int, task, tabID string, running bool) (agents.ProcInfo, error) {
	if running {
		return r.run.Reassign(ctx, pid, tabID)
	}
	return r.run.Spawn(ctx, task, tabID, "")
}
