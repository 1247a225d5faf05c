package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"vroom/agents"
	"vroom/browser"
	"vroom/voice"
)

// Names of the events the app sends to the UI. Each is namespaced by what
// it is about, so the UI subscribes to exactly what a component draws.
const (
	// EventTabs carries a TabsView whenever the browser's tabs change,
	// coalesced to at most one per TabsCoalesce.
	EventTabs = "tabs:changed"
	// EventBrowser carries a BrowserState when the browser becomes ready
	// or fails to start.
	EventBrowser = "browser:state"
	// EventRoom carries an agents.Event of the running run's room.
	EventRoom = "room:event"
	// EventRun carries a RunView when a run starts or ends.
	EventRun = "run:state"
	// EventCard carries a Card: a confirmation or a question waiting for
	// the person.
	EventCard = "card:open"
	// EventCardClosed carries the id of a card that no longer waits
	// (answered, or its run ended).
	EventCardClosed = "card:closed"
)

// User is the owner name the person's own actions in a tab carry, so a tab
// an agent holds refuses them with the agent's name.
const User = "user"

// Errors the bound methods return; the UI shows their messages.
var (
	// ErrBrowserNotReady is returned while the browser is still starting
	// (or failed to start: the error then says why).
	ErrBrowserNotReady = errors.New("the browser is not ready yet")
	// ErrNoRun is returned by run controls when no run is active.
	ErrNoRun = errors.New("no run is active")
	// ErrRunActive is returned when a task is submitted while another run
	// is going.
	ErrRunActive = errors.New("a run is already active: stop it first")
	// ErrNoCard is returned for an answer to a card that is not waiting.
	ErrNoCard = errors.New("no such card is waiting")
)

// Emitter sends a named event to the UI. In the window it is Wails'
// EventsEmit; tests record what was sent. Emit must not block for long: it
// is called from the goroutines that follow the browser and the room.
type Emitter interface {
	Emit(name string, data any)
}

// EmitterFunc adapts a function to Emitter.
type EmitterFunc func(name string, data any)

// Emit calls f.
func (f EmitterFunc) Emit(name string, data any) { f(name, data) }

// TabsView is the sidebar's model: every tab and which one is active.
type TabsView struct {
	Tabs   []browser.TabInfo `json:"tabs"`
	Active string            `json:"active"`
}

// BrowserState says whether the app's browser can be used.
type BrowserState struct {
	Ready bool   `json:"ready"`
	Error string `json:"error,omitempty"`
}

// LiveEndpoint is where the UI fetches a tab's frames:
// URL + "/live/" + tab + "?token=" + Token.
type LiveEndpoint struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

// SubmitResult says what the omnibox's text did.
type SubmitResult struct {
	// Kind is "url" (the active tab navigated) or "task" (a run started).
	Kind  string `json:"kind"`
	URL   string `json:"url,omitempty"`
	RunID string `json:"run_id,omitempty"`
}

// RunView is a run's state for the UI.
type RunView struct {
	ID    string `json:"id"`
	Task  string `json:"task"`
	State string `json:"state"` // running, done, failed
	// Stop says why a failed run stopped when it was not the task's own
	// failure: "budget" (one of the run's budgets ran out: Summary says
	// which) or "killed" (the person stopped it, or Vroom closed).
	Stop    string            `json:"stop,omitempty"`
	Summary string            `json:"summary,omitempty"`
	Started time.Time         `json:"started"`
	Ended   time.Time         `json:"ended,omitzero"`
	Tabs    []string          `json:"tabs,omitempty"` // attached by the person
	Procs   []agents.ProcInfo `json:"procs"`
	Usage   agents.Usage      `json:"usage"`
	// Transcript is the room so far, for a UI that (re)loads mid-run.
	Transcript []agents.Entry `json:"transcript"`
	// Muted are the agents whose voices the person muted (SetAgentMuted).
	Muted []string `json:"muted"`
}

// Card is a confirmation or a question the person must answer.
type Card struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"` // confirm or ask
	RunID string `json:"run_id"`
	Agent string `json:"agent"`
	// For a confirmation: the exact action, its target, why it needs
	// approval and the page.
	Action string `json:"action,omitempty"`
	Target string `json:"target,omitempty"`
	Reason string `json:"reason,omitempty"`
	URL    string `json:"url,omitempty"`
	// For a question: the text and the answers to offer.
	Question string   `json:"question,omitempty"`
	Options  []string `json:"options,omitempty"`
}

// RunSummary is one past run in the history.
type RunSummary struct {
	ID      string    `json:"id"`
	Task    string    `json:"task"`
	Outcome string    `json:"outcome"` // done, failed, killed, unfinished
	Summary string    `json:"summary,omitempty"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
	Tokens  int       `json:"tokens"`
	Cost    float64   `json:"cost"`
	Agents  int       `json:"agents"`
}

// session is what the desktop holds while the window is open: the browser,
// the live view server, the active run and the cards waiting for the person.
type session struct {
	ctx    context.Context // ends at shutdown
	cancel context.CancelFunc
	ready  chan struct{} // closed once the browser launch ended, either way
	wg     sync.WaitGroup

	mu      sync.Mutex
	b       *browser.Browser
	ownB    bool // the session launched b and closes it
	bErr    error
	live    *liveServer
	active  string // the tab shown large when no run is active
	run     *activeRun
	cards   map[string]*pendingCard
	cardSeq int
}

// activeRun is the run in progress (or the last one, ended).
type activeRun struct {
	id      string
	task    string
	attach  []string
	run     *agents.Run
	tabs    *Tabs
	voice   *voice.Voice // nil: text-only
	started time.Time
	done    chan struct{}

	mu      sync.Mutex
	ended   time.Time
	state   string
	stop    string // see RunView.Stop
	summary string
	heldBy  map[string]string // tab id → agent, while the person has taken it over
}

type pendingCard struct {
	card   Card
	answer chan string
}

// startSession launches the browser in the background, so the window
// appears at once, and starts the live view server.
func (a *App) startSession() {
	ctx, cancel := context.WithCancel(context.Background())
	s := &session{ctx: ctx, cancel: cancel, ready: make(chan struct{}), cards: map[string]*pendingCard{}}
	a.mu.Lock()
	a.sess = s
	a.mu.Unlock()

	live, err := newLiveServer(func(id string) (*browser.Tab, error) {
		b, err := a.browserNow()
		if err != nil {
			return nil, err
		}
		return b.Tab(id)
	})
	if err != nil {
		a.log.Error("live view server", "err", err)
	}
	s.mu.Lock()
	s.live = live
	s.mu.Unlock()

	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(s.ready)
		b, own, err := a.openBrowser(ctx)
		s.mu.Lock()
		s.b, s.ownB, s.bErr = b, own, err
		s.mu.Unlock()
		if err != nil {
			a.log.Error("browser", "err", err)
			a.emit(EventBrowser, BrowserState{Error: err.Error()})
			return
		}
		a.log.Info("browser ready")
		a.pickActive("")
		a.emit(EventBrowser, BrowserState{Ready: true})
		a.emitTabs()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			a.followTabs(ctx, b)
		}()
	}()
}

// openBrowser returns the browser to use: the one given in Options, or a
// headless Chromium on the persistent profile. The person sees its tabs
// through the live view, never a window of its own.
func (a *App) openBrowser(ctx context.Context) (*browser.Browser, bool, error) {
	if a.opts.Browser != nil {
		return a.opts.Browser, false, nil
	}
	dir, err := a.dataDir()
	if err != nil {
		return nil, false, err
	}
	b, err := browser.Launch(ctx, browser.Options{ProfileDir: filepath.Join(dir, "profile")})
	if err != nil {
		return nil, false, fmt.Errorf("start the browser: %w", err)
	}
	return b, true, nil
}

func (a *App) dataDir() (string, error) {
	if a.opts.DataDir != "" {
		return a.opts.DataDir, nil
	}
	return DataDir()
}

// stopSession kills the run, releases every waiting card and closes the
// browser. It returns within grace even if something hangs.
func (a *App) stopSession(grace time.Duration) {
	a.mu.Lock()
	s := a.sess
	a.mu.Unlock()
	if s == nil {
		return
	}
	s.mu.Lock()
	r := s.run
	live := s.live
	s.mu.Unlock()
	if r != nil {
		r.run.Kill("Vroom is closing")
	}
	s.cancel()
	timeout := time.NewTimer(grace)
	defer timeout.Stop()
	if r != nil {
		select {
		case <-r.done:
		case <-timeout.C:
		}
	}
	if live != nil {
		live.Close()
	}
	select {
	case <-s.ready:
	case <-timeout.C:
	}
	s.mu.Lock()
	b, own := s.b, s.ownB
	s.mu.Unlock()
	if b != nil && own {
		b.Close()
	}
}

func (a *App) session() *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sess
}

func (a *App) emit(name string, data any) {
	a.mu.Lock()
	e := a.emitter
	a.mu.Unlock()
	if e != nil {
		e.Emit(name, data)
	}
}

// browserNow returns the browser, or why it cannot be used yet.
func (a *App) browserNow() (*browser.Browser, error) {
	s := a.session()
	if s == nil {
		return nil, ErrBrowserNotReady
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bErr != nil {
		return nil, fmt.Errorf("%w: %w", ErrBrowserNotReady, s.bErr)
	}
	if s.b == nil {
		return nil, ErrBrowserNotReady
	}
	return s.b, nil
}

// WaitBrowser blocks until the browser has started or failed to, or ctx
// ends.
func (a *App) waitBrowser(ctx context.Context) (*browser.Browser, error) {
	s := a.session()
	if s == nil {
		return nil, ErrBrowserNotReady
	}
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return a.browserNow()
}

// followTabs turns the browser's tab events into coalesced EventTabs: a
// burst (a page loading fires title, URL, favicon and loading changes)
// becomes one update.
func (a *App) followTabs(ctx context.Context, b *browser.Browser) {
	events := b.Subscribe(ctx)
	var flush <-chan time.Time
	var timer *time.Timer
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				if timer != nil {
					timer.Stop()
				}
				return
			}
			if ev.Kind == browser.TabClosed {
				a.pickActive(ev.Tab.ID)
			}
			if flush == nil {
				timer = time.NewTimer(a.opts.TabsCoalesce)
				flush = timer.C
			}
		case <-flush:
			flush, timer = nil, nil
			a.emitTabs()
		}
	}
}

// pickActive makes sure the active tab exists: when it is gone (or gone is
// the tab just closed) the last tab nobody else holds becomes active.
func (a *App) pickActive(gone string) {
	b, err := a.browserNow()
	if err != nil {
		return
	}
	s := a.session()
	tabs := b.Tabs(browser.TabQuery{Limit: 1000}).Tabs
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active != "" && s.active != gone {
		for _, t := range tabs {
			if t.ID == s.active {
				return
			}
		}
	}
	s.active = ""
	for i := len(tabs) - 1; i >= 0; i-- {
		if tabs[i].ID != gone && tabs[i].Owner == "" {
			s.active = tabs[i].ID
			return
		}
	}
}

func (a *App) emitTabs() {
	v, err := a.Tabs()
	if err == nil {
		a.emit(EventTabs, v)
	}
}

// Tabs returns the browser's tabs and the active one.
func (a *App) Tabs() (TabsView, error) {
	b, err := a.browserNow()
	if err != nil {
		return TabsView{Tabs: []browser.TabInfo{}}, nil
	}
	s := a.session()
	v := TabsView{Tabs: b.Tabs(browser.TabQuery{Limit: 1000}).Tabs}
	if v.Tabs == nil {
		v.Tabs = []browser.TabInfo{}
	}
	s.mu.Lock()
	v.Active = s.active
	s.mu.Unlock()
	return v, nil
}

// BrowserState reports whether the browser is ready.
func (a *App) BrowserState() BrowserState {
	_, err := a.browserNow()
	if err != nil {
		s := a.session()
		if s != nil {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.bErr != nil {
				return BrowserState{Error: s.bErr.Error()}
			}
		}
		return BrowserState{}
	}
	return BrowserState{Ready: true}
}

// NewTab opens a tab at url (blank when empty) and makes it active.
func (a *App) NewTab(url string) (browser.TabInfo, error) {
	ctx, cancel := context.WithTimeout(a.context(), 30*time.Second)
	defer cancel()
	b, err := a.waitBrowser(ctx)
	if err != nil {
		return browser.TabInfo{}, fmt.Errorf("new tab: %w", err)
	}
	url = strings.TrimSpace(url)
	if url != "" {
		if u, ok := omniboxURL(url); ok {
			url = u
		}
	}
	t, err := b.Open(ctx, url)
	if t != nil {
		s := a.session()
		s.mu.Lock()
		s.active = t.ID()
		s.mu.Unlock()
		a.emitTabs()
	}
	if err != nil {
		return browser.TabInfo{}, fmt.Errorf("new tab: %w", err)
	}
	return t.Info(), nil
}

// CloseTab closes the tab id. A tab an agent holds is not closed: the agent
// must finish or be stopped first.
func (a *App) CloseTab(id string) error {
	b, err := a.browserNow()
	if err != nil {
		return fmt.Errorf("close tab: %w", err)
	}
	t, err := b.Tab(id)
	if err != nil {
		return fmt.Errorf("close tab: %w", err)
	}
	if o := t.Info().Owner; o != "" {
		return fmt.Errorf("close tab: %s is working in it; stop the run first", o)
	}
	ctx, cancel := context.WithTimeout(a.context(), 10*time.Second)
	defer cancel()
	if err := t.Close(ctx); err != nil {
		return fmt.Errorf("close tab: %w", err)
	}
	a.pickActive(id)
	a.emitTabs()
	return nil
}

// ActivateTab makes the tab id the one shown large.
func (a *App) ActivateTab(id string) error {
	b, err := a.browserNow()
	if err != nil {
		return fmt.Errorf("switch tab: %w", err)
	}
	if _, err := b.Tab(id); err != nil {
		return fmt.Errorf("switch tab: %w", err)
	}
	s := a.session()
	s.mu.Lock()
	s.active = id
	s.mu.Unlock()
	a.emitTabs()
	return nil
}

// LiveEndpoint returns where the UI reads tabs' frames.
func (a *App) LiveEndpoint() (LiveEndpoint, error) {
	s := a.session()
	if s == nil {
		return LiveEndpoint{}, errors.New("live view: the app has not started")
	}
	s.mu.Lock()
	live := s.live
	s.mu.Unlock()
	if live == nil {
		return LiveEndpoint{}, errors.New("live view: the frame server could not start")
	}
	return LiveEndpoint{URL: live.URL(), Token: live.token}, nil
}

// PointerInput forwards the person's mouse event in a live view to the tab,
// as trusted input. A tab an agent holds refuses it.
func (a *App) PointerInput(tabID string, ev browser.PointerInput) error {
	t, err := a.userTab(tabID)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(a.context(), 5*time.Second)
	defer cancel()
	return t.ForwardPointer(browser.WithOwner(ctx, a.inputOwner(tabID)), ev)
}

// KeyInput forwards the person's key event in a live view to the tab.
func (a *App) KeyInput(tabID string, ev browser.KeyInput) error {
	t, err := a.userTab(tabID)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(a.context(), 5*time.Second)
	defer cancel()
	return t.ForwardKey(browser.WithOwner(ctx, a.inputOwner(tabID)), ev)
}

func (a *App) userTab(id string) (*browser.Tab, error) {
	b, err := a.browserNow()
	if err != nil {
		return nil, err
	}
	return b.Tab(id)
}

// hostLike mirrors the omnibox's rule in frontend/src/lib/omnibox.ts.
var hostLike = regexp.MustCompile(`(?i)^(localhost|\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:]+\]|([a-z0-9-]+\.)+[a-z]{2,})(:\d{1,5})?(/\S*)?$`)

// omniboxURL returns the URL text means, and whether it is one: a scheme, or
// a single word that is clearly a host. Anything else is a task.
func omniboxURL(text string) (string, bool) {
	text = strings.TrimSpace(text)
	if text == "" || strings.ContainsAny(text, " \t\n") {
		return "", false
	}
	lower := strings.ToLower(text)
	for _, p := range []string{"http:", "https:", "file:", "about:", "chrome:"} {
		if strings.HasPrefix(lower, p) {
			return text, true
		}
	}
	if hostLike.MatchString(text) {
		if strings.HasPrefix(lower, "localhost") || strings.HasPrefix(lower, "127.") || strings.HasPrefix(lower, "[::1]") {
			return "http://" + text, true
		}
		return "https://" + text, true
	}
	return "", false
}

// Submit is the omnibox: a URL navigates the active tab (opening one if
// there is none); anything else starts a run on it, in tabs when the person
// attached some.
func (a *App) Submit(text string, tabs []string) (SubmitResult, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return SubmitResult{}, errors.New("type a URL or a task")
	}
	if u, ok := omniboxURL(text); ok && len(tabs) == 0 {
		return a.navigateActive(u)
	}
	id, err := a.StartRun(text, tabs)
	if err != nil {
		return SubmitResult{}, err
	}
	return SubmitResult{Kind: "task", RunID: id}, nil
}

func (a *App) navigateActive(u string) (SubmitResult, error) {
	ctx, cancel := context.WithTimeout(a.context(), 30*time.Second)
	defer cancel()
	b, err := a.waitBrowser(ctx)
	if err != nil {
		return SubmitResult{}, fmt.Errorf("open %s: %w", u, err)
	}
	s := a.session()
	s.mu.Lock()
	id := s.active
	s.mu.Unlock()
	t, err := b.Tab(id)
	if err != nil {
		if _, err := a.NewTab(u); err != nil {
			return SubmitResult{}, err
		}
		return SubmitResult{Kind: "url", URL: u}, nil
	}
	if _, err := t.Navigate(browser.WithOwner(ctx, User), u); err != nil {
		return SubmitResult{}, fmt.Errorf("open %s: %w", u, err)
	}
	return SubmitResult{Kind: "url", URL: u}, nil
}

// StartRun starts a run on task, its executors working in the tabs the
// person attached (by id) where the planner chooses to. It returns the
// run's id at once; the run reports through EventRoom and EventRun.
func (a *App) StartRun(task string, tabs []string) (string, error) {
	task = strings.TrimSpace(task)
	if task == "" {
		return "", errors.New("start run: the task is empty")
	}
	s := a.session()
	if s == nil {
		return "", fmt.Errorf("start run: %w", ErrBrowserNotReady)
	}
	ctx, cancel := context.WithTimeout(a.context(), 30*time.Second)
	defer cancel()
	b, err := a.waitBrowser(ctx)
	if err != nil {
		return "", fmt.Errorf("start run: %w", err)
	}
	for _, id := range tabs {
		t, err := b.Tab(id)
		if err != nil {
			return "", fmt.Errorf("start run: attached tab: %w", err)
		}
		if o := t.Info().Owner; o != "" {
			return "", fmt.Errorf("start run: tab %q is held by %s", t.Info().Title, o)
		}
	}
	a.mu.Lock()
	st := a.settings
	a.mu.Unlock()
	key, _, err := a.secrets.APIKey(ctx)
	if err != nil && !errors.Is(err, ErrNoKey) {
		return "", fmt.Errorf("start run: %w", err)
	}
	if key == "" && !isLocal(st.BaseURL) {
		return "", fmt.Errorf("start run: no API key for %s: add one in Settings, or point the base URL at a local server", st.BaseURL)
	}
	dir, err := a.dataDir()
	if err != nil {
		return "", fmt.Errorf("start run: %w", err)
	}

	s.mu.Lock()
	if s.run != nil && s.run.isRunning() {
		s.mu.Unlock()
		return "", ErrRunActive
	}
	id := agents.NewRunID(time.Now())
	log, err := agents.CreateRunLog(filepath.Join(dir, "runs"), id, nil)
	if err != nil {
		s.mu.Unlock()
		return "", fmt.Errorf("start run: %w", err)
	}
	log.Redact(key)
	models := map[agents.Role]string{agents.RolePlanner: st.PlannerModel, agents.RoleExecutor: st.ExecutorModel}
	if st.VisionModel != "" {
		models[agents.RoleVision] = st.VisionModel
	}
	budget := agents.Budget{Steps: st.Budgets.MaxStepsPerAgent, Tokens: st.Budgets.MaxRunTokens, Cost: st.Budgets.MaxRunCostUSD}
	if st.Budgets.MaxRunMinutes > 0 {
		budget.Wall = time.Duration(st.Budgets.MaxRunMinutes) * time.Minute
	}
	runCtx, cancelRun := context.WithCancel(s.ctx)
	pt := NewTabs(runCtx, b, browser.ObserveOptions{})
	r := &activeRun{id: id, task: task, attach: tabs, tabs: pt, started: time.Now(), done: make(chan struct{}), state: "running"}
	cfg := agents.Config{
		Model:     agents.NewModel(agents.ModelConfig{BaseURL: st.BaseURL, APIKey: key, Models: models}),
		Tabs:      pt,
		Log:       log,
		Budget:    budget,
		MaxAgents: st.Budgets.MaxAgents,
		Confirm: agents.ConfirmFunc(func(ctx context.Context, c agents.Confirmation) (agents.Decision, error) {
			return a.confirm(ctx, id, c)
		}),
		Ask: agents.AskFunc(func(ctx context.Context, q agents.Question) (string, error) { return a.ask(ctx, id, q) }),
	}
	if !a.opts.TextOnly {
		v, err := voice.New(runCtx, voice.Config{BaseURL: agents.NormalizeBaseURL(st.BaseURL), APIKey: key,
			TTSModel: st.TTSModel, Voices: st.Voices, STTModel: st.STTModel})
		if err != nil {
			a.log.Warn("no voice; the run is text-only", "err", err)
		} else {
			r.voice = v
			cfg.Voice = speaker{v}
		}
	}
	if a.opts.EditRun != nil {
		a.opts.EditRun(&cfg)
	}
	r.run = agents.NewRun(runCtx, cfg)
	if r.voice != nil {
		go a.hear(runCtx, r)
	}
	s.run = r
	s.mu.Unlock()

	sub := r.run.Room().Subscribe(runCtx)
	forwarded := make(chan struct{})
	go func() {
		defer close(forwarded)
		for e := range sub.C() {
			a.emit(EventRoom, e)
			if ri, ok := e.Data.(agents.RunInfo); ok && ri.State != "started" {
				return
			}
		}
	}()
	a.emit(EventRun, r.view())
	a.log.Info("run started", "id", id, "task", task, "tabs", tabs)

	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancelRun()
		res, err := r.run.Execute(runCtx, task, tabs...)
		log.Close()
		if r.voice != nil {
			r.voice.Close()
		}
		// The room's last event (the run's end) reaches the UI before the
		// run's state does.
		select {
		case <-forwarded:
		case <-time.After(time.Second):
		}
		r.mu.Lock()
		r.ended = time.Now()
		r.summary = res.Summary
		r.state = "done"
		if err != nil || !res.Success {
			r.state = "failed"
		}
		var be *agents.BudgetError
		switch {
		case errors.As(err, &be):
			r.stop, r.summary = "budget", "Stopped: "+be.Error()+". Budgets are in Settings."
		case errors.Is(err, agents.ErrKilled):
			r.stop = "killed"
		}
		r.mu.Unlock()
		close(r.done)
		a.closeCards(id)
		a.emit(EventRun, r.view())
		a.emitTabs()
		a.log.Info("run ended", "id", id, "state", r.state)
	}()
	return id, nil
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
	r := a.currentRun()
	if r == nil || !r.isRunning() {
		return ErrNoRun
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
	r := a.currentRun()
	if r == nil || !r.isRunning() {
		return ErrNoRun
	}
	r.run.Room().UserSays(text)
	return nil
}

// confirm shows a confirmation card and waits for the person.
func (a *App) confirm(ctx context.Context, runID string, c agents.Confirmation) (agents.Decision, error) {
	ans, err := a.openCard(ctx, Card{Kind: "confirm", RunID: runID, Agent: c.Agent, Action: c.Action, Target: c.Target, Reason: c.Reason, URL: c.URL})
	if err != nil {
		return agents.Deny, err
	}
	switch ans {
	case "once":
		return agents.AllowOnce, nil
	case "run":
		return agents.AllowForRun, nil
	}
	return agents.Deny, nil
}

// ask shows a question card and waits for the person's choice.
func (a *App) ask(ctx context.Context, runID string, q agents.Question) (string, error) {
	return a.openCard(ctx, Card{Kind: "ask", RunID: runID, Agent: q.Agent, Question: q.Question, Options: q.Options})
}

func (a *App) openCard(ctx context.Context, c Card) (string, error) {
	s := a.session()
	if s == nil {
		return "", errors.New("nobody is at the screen")
	}
	s.mu.Lock()
	s.cardSeq++
	c.ID = "card" + strconv.Itoa(s.cardSeq)
	p := &pendingCard{card: c, answer: make(chan string, 1)}
	s.cards[c.ID] = p
	s.mu.Unlock()
	a.emit(EventCard, c)
	defer func() {
		s.mu.Lock()
		_, still := s.cards[c.ID]
		delete(s.cards, c.ID)
		s.mu.Unlock()
		if still {
			a.emit(EventCardClosed, c.ID)
		}
	}()
	select {
	case ans := <-p.answer:
		return ans, nil
	case <-ctx.Done():
		return "", fmt.Errorf("%s: %w", c.Kind, ctx.Err())
	}
}

func (a *App) answer(id, ans string) error {
	s := a.session()
	if s == nil {
		return ErrNoCard
	}
	s.mu.Lock()
	p, ok := s.cards[id]
	delete(s.cards, id)
	s.mu.Unlock()
	if !ok {
		return ErrNoCard
	}
	p.answer <- ans
	a.emit(EventCardClosed, id)
	return nil
}

// closeCards drops the cards of a run that ended.
func (a *App) closeCards(runID string) {
	s := a.session()
	s.mu.Lock()
	var ids []string
	for id, p := range s.cards {
		if p.card.RunID == runID {
			ids = append(ids, id)
			delete(s.cards, id)
		}
	}
	s.mu.Unlock()
	for _, id := range ids {
		a.emit(EventCardClosed, id)
	}
}

// Cards returns the cards waiting for the person, oldest first.
func (a *App) Cards() []Card {
	s := a.session()
	out := []Card{}
	if s == nil {
		return out
	}
	s.mu.Lock()
	for _, p := range s.cards {
		out = append(out, p.card)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		a, _ := strconv.Atoi(strings.TrimPrefix(out[i].ID, "card"))
		b, _ := strconv.Atoi(strings.TrimPrefix(out[j].ID, "card"))
		return a < b
	})
	return out
}

// AnswerConfirm answers the confirmation card id: "deny", "once" (allow
// this action) or "run" (allow it for the rest of the run).
func (a *App) AnswerConfirm(id, decision string) error {
	switch decision {
	case "deny", "once", "run":
	default:
		return fmt.Errorf("answer %s: %q is not deny, once or run", id, decision)
	}
	if err := a.answer(id, decision); err != nil {
		return fmt.Errorf("answer %s: %w", id, err)
	}
	return nil
}

// AnswerAsk answers the question card id with one of its options.
func (a *App) AnswerAsk(id, option string) error {
	if strings.TrimSpace(option) == "" {
		return fmt.Errorf("answer %s: the answer is empty", id)
	}
	if err := a.answer(id, option); err != nil {
		return fmt.Errorf("answer %s: %w", id, err)
	}
	return nil
}

// History lists past runs from their logs, newest first.
func (a *App) History() ([]RunSummary, error) {
	dir, err := a.dataDir()
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "runs", "*.jsonl"))
	sort.Sort(sort.Reverse(sort.StringSlice(paths))) // run ids sort by start time
	out := []RunSummary{}
	for _, p := range paths {
		if len(out) == 200 {
			break
		}
		if rs, ok := summarize(p); ok {
			out = append(out, rs)
		}
	}
	return out, nil
}

// summarize reads one run log into its history row.
func summarize(path string) (RunSummary, bool) {
	f, err := os.Open(path)
	if err != nil {
		return RunSummary{}, false
	}
	defer f.Close()
	recs, _ := agents.ReadRunLog(f)
	return summarizeRecords(strings.TrimSuffix(filepath.Base(path), ".jsonl"), recs)
}

// summarizeRecords is a run's history row from its log's records.
func summarizeRecords(id string, recs []agents.LogRecord) (RunSummary, bool) {
	if len(recs) == 0 {
		return RunSummary{}, false
	}
	rs := RunSummary{ID: id, Outcome: "unfinished", Started: recs[0].Time}
	for _, r := range recs {
		switch r.Event {
		case "run_start":
			rs.Task = r.Text
		case "spawn":
			rs.Agents++
		case "killed":
			rs.Outcome = "killed"
		case "run_done":
			rs.Ended = r.Time
			rs.Summary = r.Text
			if rs.Outcome != "killed" {
				rs.Outcome = "failed"
				if r.Success != nil && *r.Success {
					rs.Outcome = "done"
				}
			}
			if r.Usage != nil {
				rs.Tokens, rs.Cost = r.Usage.Total(), r.Usage.Cost
			}
		}
	}
	return rs, rs.Task != ""
}

// HandTab gives the tab id to the agent pid (a tab dropped on its tile):
// the agent stops where it is and a new executor continues its sub-task in
// that tab, with whatever session the tab holds. A tab someone else holds
// is refused, naming the holder.
func (a *App) HandTab(pid int, tabID string) (agents.ProcInfo, error) {
	r := a.currentRun()
	if r == nil || !r.isRunning() {
		return agents.ProcInfo{}, ErrNoRun
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
	ctx, cancel := context.WithTimeout(a.context(), 30*time.Second)
	defer cancel()
	if running {
		// The planner waiting on pid is told where its work went.
		p, err := r.run.Reassign(ctx, pid, tabID)
		if err != nil {
			return p, fmt.Errorf("hand tab: %w", err)
		}
		return p, nil
	}
	// A finished agent's task is retried in the tab.
	p, err := r.run.Spawn(ctx, task, tabID, "")
	if err != nil {
		return p, fmt.Errorf("hand tab: %w", err)
	}
	return p, nil
}

// hear turns what the person said into corrections for every agent, or
// into the answer to a waiting card when it clearly is one.
func (a *App) hear(ctx context.Context, r *activeRun) {
	for {
		select {
		case tr, ok := <-r.voice.Transcripts():
			if !ok {
				return
			}
			switch {
			case tr.Err != nil:
				r.run.Room().Notice("what you said could not be transcribed: %v", tr.Err)
			case a.answerByVoice(r, tr.Text):
			default:
				r.run.Room().UserSays(tr.Text)
			}
			r.run.Room().UserStops()
		case <-ctx.Done():
			return
		}
	}
}

// Unmute gives the person the floor: any agent speaking is cut off at once
// and the microphone opens. Mute closes it; what was said reaches every
// agent as a correction.
func (a *App) Unmute() error {
	r := a.currentRun()
	if r == nil || !r.isRunning() {
		return ErrNoRun
	}
	r.run.Room().UserStarts()
	if r.voice == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(a.context(), 5*time.Second)
	defer cancel()
	if err := r.voice.Unmute(ctx); err != nil {
		r.run.Room().UserStops()
		return fmt.Errorf("unmute: %w", err)
	}
	return nil
}

// Mute closes the microphone; what was said is transcribed and sent to the
// agents.
func (a *App) Mute() error {
	r := a.currentRun()
	if r == nil || !r.isRunning() {
		return ErrNoRun
	}
	if r.voice == nil {
		r.run.Room().UserStops()
		return nil
	}
	ctx, cancel := context.WithTimeout(a.context(), 5*time.Second)
	defer cancel()
	c, err := r.voice.Mute(ctx)
	if err != nil || c == nil || !c.Speech {
		// Nothing to transcribe: the floor is free again.
		r.run.Room().UserStops()
	}
	if err != nil {
		return fmt.Errorf("mute: %w", err)
	}
	return nil
}

// MicLevel is the microphone's level (0 to 1) while unmuted; the UI polls
// it at its frame rate.
func (a *App) MicLevel() float64 {
	r := a.currentRun()
	if r == nil || r.voice == nil {
		return 0
	}
	return r.voice.Level()
}
