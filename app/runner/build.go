package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/remote"
	"vroom/browser"
	"vroom/voice"
)

// drainWait bounds waiting, once a run has ended, for its last events to
// reach the UI or the terminal. The run's end is its last event, so it is
// normally there at once; a stalled reader must not hold the run open.
const drainWait = time.Second

// CloseGrace bounds closing a run's tabs after it ends or is interrupted:
// Ctrl-C must leave nothing running within 2 s.
const CloseGrace = 1500 * time.Millisecond

// RunSpec is everything a run is built from, whichever face starts it: the
// desktop (App.StartRun), `vroom run` and `vroom mcp`'s run_task. Zero fields
// take the defaults noted; Task and Browser (or Endpoints) are required.
type RunSpec struct {
	// ID names the run and its log; empty picks agents.NewRunID.
	ID   string
	Task string
	// Tabs are the tabs the person attached, by id: the planner may spawn
	// executors in them.
	Tabs    []string
	Browser *browser.Browser
	// Endpoints, when set, are the remote browsers the run's new tabs
	// open in, each in the least-loaded one up (remote.Pool); Browser,
	// which may then be nil, only holds tabs to attach.
	Endpoints *remote.Pool
	// Settings give the base URL, the models, the budgets and the voices,
	// with the face's own overrides (flags) already applied.
	Settings config.Settings
	// Key returns the API key, or ErrNoKey when none is set (nil: none).
	Key func(ctx context.Context) (string, error)
	// DataDir holds runs/, where the run's log is written and, in
	// runs/ID-downloads, what its tabs download.
	DataDir string
	// Files are the files the person gave the run (vroom run --file,
	// run_task's files); with the existing files the task names by
	// absolute path, they are all an upload may send.
	Files []string
	// MaxDownload caps one download, in bytes (0: DefaultMaxDownload).
	MaxDownload int64
	// Policy is the run's navigation and safety policy.
	Policy agents.Policy
	// Voice speaks agents' messages and hears the person. When no sound
	// server answers, Warn is told and the run is text-only.
	Voice bool
	// Confirm approves irreversible actions; nil is headless: they are
	// denied unless Policy.AllowIrreversible.
	Confirm agents.Confirmer
	// Ask answers ask_user; nil tells agents nobody is there.
	Ask agents.Asker
	// Heard, when set, sees each transcript of the person's speech first
	// and reports whether it took it (as a card's answer); otherwise the
	// transcript is a correction for every agent.
	Heard func(said string) bool
	// Events receives the room's events in order, in one goroutine, up to
	// and including the run's end. An error stops the forwarding; Close
	// returns it.
	Events func(agents.Event) error
	// Warn is told, before BuildRun returns, of what makes the run less
	// than asked without stopping it (no voice).
	Warn func(error)
	// Prewarm opens this many blank tabs while the planner thinks, so its
	// first spawns do not wait on tab creation.
	Prewarm int
	// CloseTabs closes the tabs the run opened when it ends (headless: no
	// one is left to look at them).
	CloseTabs bool
	// Edit adjusts the run's configuration before it starts (tests: a
	// faster floor, a fake voice).
	Edit func(*agents.Config)
	// EditModel adjusts the model client's configuration before it is
	// made (tests: bounds on a silent server of a second, not 30 s).
	EditModel func(*agents.ModelConfig)
	// EndOnBrowserLoss ends the whole run when the browser dies (headless:
	// nothing relaunches it). Otherwise the agents working in it end
	// failed, told once that their tab is gone, and the planner decides.
	EndOnBrowserLoss bool
	// KeyHint says where the person sets the API key; a refused key's
	// failure ends with it.
	KeyHint string
	// Hints say, in the face's words, what would allow what a run with
	// nobody to ask denies (vroom run's flags); zero fields take agents'
	// neutral wording.
	Hints agents.Hints
	// FinishSpeech is how long Close lets the last message play before it
	// closes the voice (0: it is cut at once).
	FinishSpeech time.Duration
}

// BuiltRun is a run with everything it owns: its tabs, its voice, its log,
// the forwarding of its room and the transcripts of the person's speech.
// Execute runs it; Close releases all of it and returns every error.
type BuiltRun struct {
	// ID names the run; its log is LogPath.
	ID      string
	LogPath string
	Run     *agents.Run
	Tabs    *Tabs
	// Voice is nil when the run is text-only.
	Voice *voice.Voice

	spec       RunSpec
	log        *agents.RunLog
	ctx        context.Context // the run's lifetime: its tabs, voice and transcripts
	cancel     context.CancelFunc
	cancelSub  context.CancelFunc
	forwarded  chan struct{} // closed when the forwarding ended
	forwardErr error         // written before forwarded closes

	executed  atomic.Bool // Execute was called: the run's end event will come
	said      speeches    // what the run's voice played, so Close can let it end
	closeOnce sync.Once
	closeErr  error
}

// BuildRun checks the key, creates the run's log and builds the run from
// spec, with its voice when asked. ctx is the run's whole lifetime, not
// just the building's: its end stops the run. Building may take seconds
// (the audio probe), so callers must not hold a lock across it.
func BuildRun(ctx context.Context, spec RunSpec) (*BuiltRun, error) {
	key, err := runKey(ctx, spec)
	if err != nil {
		return nil, err
	}
	if spec.ID == "" {
		spec.ID = agents.NewRunID(time.Now())
	}
	dir := filepath.Join(spec.DataDir, "runs")
	log, err := agents.CreateRunLog(dir, spec.ID, nil)
	if err != nil {
		return nil, err
	}
	log.Redact(key)
	b := &BuiltRun{ID: spec.ID, LogPath: filepath.Join(dir, spec.ID+".jsonl"), spec: spec, log: log, forwarded: make(chan struct{})}
	b.ctx, b.cancel = context.WithCancel(ctx)
	b.Tabs = NewTabs(b.ctx, spec.Browser, spec.Endpoints, browser.ObserveOptions{})
	maxDL := spec.MaxDownload
	if maxDL <= 0 {
		maxDL = DefaultMaxDownload
	}
	b.Tabs.SetDownloads(browser.DownloadOptions{Dir: filepath.Join(dir, spec.ID+"-downloads"), MaxBytes: maxDL})
	cfg := runConfig(spec, key)
	cfg.Tabs, cfg.Log = goneTabs{b.Tabs}, log
	cfg.Files = GivenFiles(spec.Task, spec.Files)
	if spec.Voice {
		// The voice outlives the run's context: Close cancels that first,
		// then lets the last message finish (FinishSpeech) and only then
		// closes the voice, which ends its audio whatever the context.
		b.Voice = openVoice(context.WithoutCancel(b.ctx), spec, key)
		if b.Voice != nil {
			cfg.Voice = trackedSpeaker{speaker{b.Voice}, &b.said}
		}
	}
	// With remote browsers a tab's browser dying ends only its agent;
	// the run ends when none is left (watchEndpoints).
	cfg.FailOnBrowserGone = spec.EndOnBrowserLoss && spec.Endpoints == nil
	if spec.Edit != nil {
		spec.Edit(&cfg)
	}
	b.Run = agents.NewRun(b.ctx, cfg)
	b.forward(ctx)
	if spec.Endpoints != nil {
		watchEndpoints(b.ctx, spec.Endpoints, b.Run, spec.EndOnBrowserLoss)
	} else {
		watchBrowser(b.ctx, spec.Browser, b.Run, spec.EndOnBrowserLoss)
	}
	if spec.Prewarm > 0 {
		go b.prewarm(spec.Prewarm)
	}
	return b, nil
}

// runKey returns the API key, and ErrNoAPIKey when the run needs one and
// has none: a keyring that could not be read has given none, and its
// error is said after (a locked keyring, one that did not answer); no
// keyring at all (no session bus) is only no key.
func runKey(ctx context.Context, spec RunSpec) (string, error) {
	key := ""
	var keyringErr error
	if spec.Key != nil {
		k, err := spec.Key(ctx)
		if err != nil && !errors.Is(err, config.ErrNoKey) && !errors.Is(err, config.ErrNoSessionBus) {
			keyringErr = err
		}
		key = k
	}
	switch {
	case key != "" || config.IsLocal(spec.Settings.BaseURL):
		return key, nil
	case keyringErr != nil:
		return "", fmt.Errorf("%w for %s (%v)", ErrNoAPIKey, spec.Settings.BaseURL, keyringErr)
	}
	return "", fmt.Errorf("%w for %s", ErrNoAPIKey, spec.Settings.BaseURL)
}

// runConfig is the run's configuration from spec's settings: the model
// client (config.Settings.Model) and the budgets.
func runConfig(spec RunSpec, key string) agents.Config {
	st := spec.Settings
	budget := agents.Budget{Steps: st.Budgets.MaxStepsPerAgent, Tokens: st.Budgets.MaxRunTokens, Cost: st.Budgets.MaxRunCostUSD}
	if st.Budgets.MaxRunMinutes > 0 {
		budget.Wall = time.Duration(st.Budgets.MaxRunMinutes) * time.Minute
	}
	hint := spec.KeyHint
	if hint == "" {
		hint = "check the API key in Settings"
	}
	mc := st.Model(key, hint)
	if spec.EditModel != nil {
		spec.EditModel(&mc)
	}
	return agents.Config{
		Model:     agents.NewModel(mc),
		Policy:    runPolicy(spec, key), // policy.go: Settings' navigation under the face's own
		Confirm:   spec.Confirm,
		Hints:     spec.Hints,
		Ask:       spec.Ask,
		Budget:    budget,
		MaxAgents: st.Budgets.MaxAgents,
	}
}

// openVoice starts the audio for a run; nil, after telling spec.Warn, when
// it cannot (no sound server), so the run goes on text-only.
func openVoice(ctx context.Context, spec RunSpec, key string) *voice.Voice {
	st := spec.Settings
	v, err := voice.New(ctx, voice.Config{BaseURL: agents.NormalizeBaseURL(st.BaseURL), APIKey: key,
		TTSModel: st.TTSModel, Voices: st.Voices, STTModel: st.STTModel})
	if err != nil {
		if spec.Warn != nil {
			spec.Warn(fmt.Errorf("no voice (%w); running text-only", err))
		}
		return nil
	}
	return v
}

// forward sends the room's events to spec.Events until the run's end. The
// subscription outlives the run's context, so the end still gets through.
func (b *BuiltRun) forward(parent context.Context) {
	subCtx, cancel := context.WithCancel(context.WithoutCancel(parent))
	b.cancelSub = cancel
	if b.spec.Events == nil {
		close(b.forwarded)
		return
	}
	sub := b.Run.Room().Subscribe(subCtx)
	go func() {
		defer close(b.forwarded)
		for e := range sub.C() {
			if err := b.spec.Events(e); err != nil {
				b.forwardErr = fmt.Errorf("forward the run's events: %w", err)
				return
			}
			if ri, ok := e.Data.(agents.RunInfo); ok && ri.State != agents.RunStarted {
				return
			}
		}
	}()
}

// prewarm opens blank tabs ahead. A failure only costs the first spawns
// some time; the room says so, unless the run was already over.
func (b *BuiltRun) prewarm(n int) {
	if err := b.Tabs.Prewarm(b.ctx, n); err != nil && b.ctx.Err() == nil {
		b.Run.Room().Notice("blank tabs could not be opened ahead: %v", err)
	}
}

// Context is the run's lifetime: it ends when the run is closed.
func (b *BuiltRun) Context() context.Context { return b.ctx }

// Execute runs the task in the attached tabs until it ends; ctx's end
// (Ctrl-C) kills it in order, and the log says why.
func (b *BuiltRun) Execute(ctx context.Context) (agents.Result, error) {
	b.executed.Store(true)
	if b.Voice != nil {
		go b.hear()
	}
	return b.Run.Execute(ctx, b.spec.Task, b.spec.Tabs...)
}

// hear turns what the person said into corrections for every agent, or
// into what spec.Heard takes (a card's answer).
func (b *BuiltRun) hear() {
	room := b.Run.Room()
	for {
		select {
		case tr, ok := <-b.Voice.Transcripts():
			if !ok {
				return
			}
			switch {
			case tr.Err != nil:
				room.Notice("what you said could not be transcribed: %v", tr.Err)
			case b.spec.Heard != nil && b.spec.Heard(tr.Text):
			default:
				room.UserSays(tr.Text)
			}
			room.UserStops()
		case <-b.ctx.Done():
			return
		}
	}
}

// Close releases what the run holds, once, after Execute returned: the
// tabs it opened (with CloseTabs), the forwarding of its events (after at
// most drainWait for the run's end to get through), its transcripts, its
// voice and its log. It returns every error, joined; a log that could not
// be written whole wraps ErrRunLogIncomplete (and agents.ErrRunLogWrite,
// which already failed the run when a write met it).
func (b *BuiltRun) Close() error {
	b.closeOnce.Do(func() { b.closeErr = b.close() })
	return b.closeErr
}

func (b *BuiltRun) close() error {
	var errs []error
	if b.spec.CloseTabs {
		errs = append(errs, b.closeTabs())
	}
	b.cancel()
	if b.executed.Load() {
		drain := time.NewTimer(drainWait)
		defer drain.Stop()
		select {
		case <-b.forwarded:
			errs = append(errs, b.forwardErr)
		case <-drain.C:
		}
	}
	b.cancelSub()
	if b.Voice != nil {
		b.said.wait(b.spec.FinishSpeech)
		if err := b.Voice.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close the voice: %w", err))
		}
	}
	if err := b.log.Close(); err != nil {
		errs = append(errs, fmt.Errorf("%w: %w", ErrRunLogIncomplete, err))
	}
	return errors.Join(errs...)
}

// closeTabs closes the tabs the run opened, within closeGrace, and logs it.
func (b *BuiltRun) closeTabs() error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(b.ctx), CloseGrace)
	defer cancel()
	rec := agents.LogRecord{Event: agents.LogTabsClosed, Text: fmt.Sprintf("%d tabs", len(b.Tabs.Opened()))}
	err := b.Tabs.CloseOpened(ctx)
	if err != nil {
		rec.Error = err.Error()
		err = fmt.Errorf("closing tabs: %w", err)
	}
	b.log.Write(rec)
	return err
}
