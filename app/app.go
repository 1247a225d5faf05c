package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"vroom/agents"
	"vroom/app/config"
	"vroom/browser"
)

// App is the object bound to the frontend: each exported method is callable
// from the UI and returns a value or an error the UI shows as a message.
type App struct {
	log      *slog.Logger
	store    config.Store
	secrets  *config.Secrets
	detect   func(context.Context) (config.LocalServer, bool)
	ctx      context.Context // set by startup; the app's lifetime
	mu       sync.Mutex
	settings config.Settings
	notice   string              // one plain line the UI shows until the cause is fixed
	offer    *config.LocalServer // a local server to offer when no key is configured
	opts     Options
	emitter  Emitter
	sess     *session   // the browser, live view and run while the window is open
	stopped  bool       // the window is closing: no session may start any more
	cards    *cards     // what waits for the person's answer; it has its own lock
	person   personSide // the person's own browsing (pageasks.go); it has its own lock
}

// Options configure an App. Zero values pick the production choices.
type Options struct {
	Store   config.Store
	Keyring config.Keyring
	// KeyringTimeout bounds each keyring call; zero means 3 s.
	KeyringTimeout time.Duration
	// Detect finds a local model server; nil probes Ollama's and llama.cpp's
	// usual ports.
	Detect func(context.Context) (config.LocalServer, bool)
	Log    *slog.Logger
	// Getenv reads OPENAI_API_KEY, which wins over the keyring; nil is the
	// process's environment.
	Getenv func(string) string
	// Browser, when set, is used instead of launching the desktop's own
	// headless Chromium; the app leaves it open at shutdown.
	Browser *browser.Browser
	// DataDir holds runs/ and the persistent profile; empty means DataDir().
	DataDir string
	// Emitter receives the events for the UI; nil means Wails' runtime
	// once the window starts.
	Emitter Emitter
	// TabsCoalesce is the window in which tab changes are merged into one
	// EventTabs (default 50 ms).
	TabsCoalesce time.Duration
	// TextOnly runs without audio: agents' messages are shown, not
	// spoken, and Unmute only takes the floor.
	TextOnly bool
	// EditRun, when set, adjusts each run's configuration before it starts
	// (tests: a faster floor, a fake voice).
	EditRun func(*agents.Config)
}

// New returns an App. Nothing is read until the window starts.
func New(o Options) *App {
	if o.Keyring == nil {
		o.Keyring = config.SystemKeyring{}
	}
	if o.KeyringTimeout == 0 {
		o.KeyringTimeout = config.KeyringTimeout
	}
	if o.Detect == nil {
		o.Detect = config.DetectLocal
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.TabsCoalesce <= 0 {
		o.TabsCoalesce = tabsCoalesce
	}
	a := &App{
		opts:     o,
		emitter:  o.Emitter,
		log:      o.Log,
		store:    o.Store,
		secrets:  config.NewSecrets(o.Keyring, o.KeyringTimeout, o.Getenv),
		detect:   o.Detect,
		settings: config.DefaultSettings(),
		ctx:      context.Background(),
	}
	a.cards = newCards(func(c Card) { emit(a, EventCard, c) }, func(id string) { emit(a, EventCardClosed, id) })
	return a
}

// startup loads settings and the key, and looks for a local model server
// when no key is configured. It never fails: problems become the notice.
func (a *App) startup(ctx context.Context) {
	a.mu.Lock()
	a.ctx = ctx
	a.mu.Unlock()

	var notices []string
	st, err := a.store.Load()
	if err != nil {
		// Keep the broken file for the person to fix; run on defaults meanwhile.
		notices = append(notices, fmt.Sprintf("Your settings file could not be used (%v); Vroom is running on defaults and will not overwrite it until you save.", err))
		st = config.DefaultSettings()
	}
	a.mu.Lock()
	a.settings = st
	a.mu.Unlock()

	_, src, err := a.secrets.APIKey(ctx)
	switch {
	case err == nil:
		a.log.Info("api key found", "source", string(src))
	case errors.Is(err, config.ErrNoKey):
		if srv, ok := a.detect(ctx); ok && st.BaseURL == config.DefaultBaseURL {
			a.mu.Lock()
			a.offer = &srv
			a.mu.Unlock()
			notices = append(notices, fmt.Sprintf("No API key is set, but %s answers at %s: use it, or add an API key in Settings.", srv.Name, srv.BaseURL))
		} else if !config.IsLocal(st.BaseURL) {
			notices = append(notices, "Vroom needs a model: add an API key for "+st.BaseURL+", or point the base URL at a local OpenAI-compatible server.")
		}
	default:
		notices = append(notices, keyringNotice(err))
	}
	a.setNotice(strings.Join(notices, " "))
}

func keyringNotice(err error) string {
	if errors.Is(err, config.ErrKeyringTimeout) {
		return "The system keyring did not answer (is it locked?). A key you enter now is kept for this session only."
	}
	return fmt.Sprintf("The system keyring is not available (%v). A key you enter now is kept for this session only.", err)
}

func (a *App) setNotice(s string) {
	a.mu.Lock()
	a.notice = s
	a.mu.Unlock()
	if s != "" {
		a.log.Warn(s)
	}
}

// State is what the UI needs to draw settings and the first-run line.
type State struct {
	Settings config.Settings `json:"settings"`
	// KeySource is where the API key in use comes from ("none" if absent).
	KeySource config.KeySource `json:"key_source"`
	// KeyHint shows the key's last four characters, never the key.
	KeyHint string `json:"key_hint"`
	// Notice is one plain sentence about what needs attention, or empty.
	Notice string `json:"notice"`
	// Offer is a local model server to use when no key is set.
	Offer *config.LocalServer `json:"offer,omitempty"`
	// NeedsSetup is true when no model can be reached as configured: the UI
	// opens the settings panel.
	NeedsSetup bool `json:"needs_setup"`
}

// State returns the current settings and key status.
func (a *App) State() (State, error) {
	key, src, err := a.secrets.APIKey(a.context())
	a.mu.Lock()
	defer a.mu.Unlock()
	s := State{Settings: a.settings, KeySource: src, Notice: a.notice, Offer: a.offer}
	if err == nil {
		s.KeyHint = config.MaskKey(key)
	}
	s.NeedsSetup = s.KeyHint == "" && !config.IsLocal(a.settings.BaseURL)
	return s, nil
}

func (a *App) context() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ctx
}

// SaveSettings validates and stores st. On a validation error nothing is
// written and the message names the field.
func (a *App) SaveSettings(st config.Settings) (State, error) {
	if err := a.store.Save(st); err != nil {
		return State{}, err
	}
	a.mu.Lock()
	a.settings = st
	if a.offer != nil && st.BaseURL == a.offer.BaseURL {
		a.offer = nil
	}
	a.notice = ""
	a.mu.Unlock()
	a.log.Info("settings saved", "path", a.store.Path, "base_url", st.BaseURL)
	a.applyDownloadsDir()
	return a.State()
}

// SetAPIKey stores key in the OS keyring. When the keyring fails the key is
// still used for this session and the returned state's notice says so.
func (a *App) SetAPIKey(key string) (State, error) {
	key = strings.TrimSpace(key)
	if key == "" {
		return State{}, errors.New("the API key is empty")
	}
	src, err := a.secrets.SetAPIKey(a.context(), key)
	if err != nil {
		a.setNotice(keyringNotice(err))
	} else {
		a.setNotice("")
	}
	a.log.Info("api key set", "source", string(src))
	return a.State()
}

// ForgetAPIKey removes the key from the keyring and this session.
func (a *App) ForgetAPIKey() (State, error) {
	if err := a.secrets.DeleteAPIKey(a.context()); err != nil {
		return State{}, fmt.Errorf("forget API key: %w", err)
	}
	return a.State()
}

// UseLocalServer points the base URL at the offered local server and picks
// its first model for every role where the current model is not served.
func (a *App) UseLocalServer() (State, error) {
	a.mu.Lock()
	offer := a.offer
	st := a.settings
	a.mu.Unlock()
	if offer == nil {
		return State{}, errors.New("no local model server was found")
	}
	st.BaseURL = offer.BaseURL
	if len(offer.Models) > 0 {
		served := make(map[string]bool, len(offer.Models))
		for _, m := range offer.Models {
			served[m] = true
		}
		for _, p := range []*string{&st.PlannerModel, &st.ExecutorModel} {
			if !served[*p] {
				*p = offer.Models[0]
			}
		}
	}
	return a.SaveSettings(st)
}
