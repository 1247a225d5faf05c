package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"vroom/agents"
)

// ErrInvalidSettings is wrapped by every validation failure, so callers can
// tell a user mistake from an I/O failure with errors.Is.
var ErrInvalidSettings = errors.New("invalid settings")

// DefaultBaseURL is OpenAI's API; any OpenAI-compatible server can replace it.
const DefaultBaseURL = "https://api.openai.com/v1"

// Settings is everything the user can configure except the API key, which
// lives in the OS keyring and is never written here.
type Settings struct {
	// BaseURL is the OpenAI-compatible endpoint: OpenAI, Gemini's compatible
	// endpoint, OpenRouter, Ollama, a llama.cpp server.
	BaseURL string `json:"base_url"`
	// PlannerModel plans and coordinates a run (the extractor).
	PlannerModel string `json:"planner_model"`
	// ExecutorModel drives one tab per sub-task.
	ExecutorModel string `json:"executor_model"`
	// VisionModel reads screenshots when the page's meaning is in pixels;
	// empty means the executor model.
	VisionModel string `json:"vision_model,omitempty"`
	// ModelAPI is how the models are spoken to: "auto" (per model: the
	// Responses API for OpenAI's GPT-6 family, Chat Completions for the
	// rest), "chat" or "responses".
	ModelAPI string `json:"model_api"`
	// PlannerEffort and ExecutorEffort are the reasoning effort asked of
	// each role's model ("", none, minimal, low, medium, high, xhigh,
	// max); "" sends none, leaving the server's default. The vision model
	// takes the executor's.
	PlannerEffort  string `json:"planner_effort"`
	ExecutorEffort string `json:"executor_effort"`
	// TTSModel turns agent speech into audio; empty means offline speech.
	TTSModel string `json:"tts_model"`
	// Voices are assigned to agents in order, so each sounds distinct.
	Voices []string `json:"voices"`
	// STTModel transcribes what the person says.
	STTModel string `json:"stt_model"`
	// Budgets bound every run.
	Budgets Budgets `json:"budgets"`
	// Navigation is where agents may go.
	Navigation Navigation `json:"navigation"`
	// Browser is where agents' tabs open: this computer's Chromium, or
	// remote browsers (endpoints_settings.go).
	Browser BrowserSettings `json:"browser"`
}

// Navigation is where agents may take the person's browser. Hosts are
// patterns as agents.ValidateHost takes them: example.com (its subdomains
// too), *.example.com, localhost:8080.
type Navigation struct {
	// AllowedHosts, when not empty, are the only hosts agents may reach.
	AllowedHosts []string `json:"allowed_hosts"`
	// BlockedHosts are hosts agents may never reach.
	BlockedHosts []string `json:"blocked_hosts"`
	// AskBeforeLeaving asks the person before an agent leaves the run's
	// sites: the pages it was given or started on, the hosts the task
	// names, and the hosts allowed during the run.
	AskBeforeLeaving bool `json:"ask_before_leaving"`
}

// Budgets bound a run so a stuck agent looks like a stall, not thought.
type Budgets struct {
	MaxStepsPerAgent int     `json:"max_steps_per_agent"`
	MaxAgents        int     `json:"max_agents"`
	MaxRunMinutes    int     `json:"max_run_minutes"`
	MaxRunTokens     int     `json:"max_run_tokens"`
	MaxRunCostUSD    float64 `json:"max_run_cost_usd"`
}

// DefaultSettings is what a new user starts with.
func DefaultSettings() Settings {
	return Settings{
		BaseURL: DefaultBaseURL,
		// OpenAI's current models (README: providers): the newest Sol
		// plans, Luna, made for high-volume work, drives the tabs.
		PlannerModel:   "gpt-6.1-sol",
		ExecutorModel:  "gpt-6-luna",
		ModelAPI:       string(agents.APIAuto),
		PlannerEffort:  "medium",
		ExecutorEffort: "low",
		TTSModel:       "gpt-4o-mini-tts",
		Voices:         []string{"alloy", "echo", "fable", "onyx", "nova", "shimmer"},
		STTModel:       "whisper-1",
		Budgets: Budgets{
			MaxStepsPerAgent: 100,
			MaxAgents:        4,
			MaxRunMinutes:    30,
			MaxRunTokens:     2_000_000,
			MaxRunCostUSD:    5,
		},
		Navigation: Navigation{AllowedHosts: []string{}, BlockedHosts: []string{}, AskBeforeLeaving: true},
		Browser:    BrowserSettings{Endpoints: []string{}},
	}
}

// FieldError names the setting that is wrong and says how to fix it.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Unwrap makes every FieldError match ErrInvalidSettings.
func (e *FieldError) Unwrap() error { return ErrInvalidSettings }

// Validate reports the first problem with s, naming the field.
func (s Settings) Validate() error {
	if err := validateBaseURL(s.BaseURL); err != nil {
		return err
	}
	for field, v := range map[string]string{"planner_model": s.PlannerModel, "executor_model": s.ExecutorModel} {
		if strings.TrimSpace(v) == "" {
			return &FieldError{field, "must name a model, e.g. gpt-6-luna or llama3.1"}
		}
	}
	if err := s.validateModelAPI(); err != nil {
		return err
	}
	for i, v := range s.Voices {
		if strings.TrimSpace(v) == "" {
			return &FieldError{fmt.Sprintf("voices[%d]", i), "must not be empty"}
		}
	}
	b := s.Budgets
	for _, c := range []struct {
		field string
		v     float64
	}{
		{"budgets.max_steps_per_agent", float64(b.MaxStepsPerAgent)},
		{"budgets.max_agents", float64(b.MaxAgents)},
		{"budgets.max_run_minutes", float64(b.MaxRunMinutes)},
		{"budgets.max_run_tokens", float64(b.MaxRunTokens)},
		{"budgets.max_run_cost_usd", b.MaxRunCostUSD},
	} {
		if c.v < 0 {
			return &FieldError{c.field, fmt.Sprintf("must not be negative (got %v)", c.v)}
		}
		if c.v == 0 {
			return &FieldError{c.field, "must be greater than zero"}
		}
	}
	if b.MaxAgents > 16 {
		return &FieldError{"budgets.max_agents", fmt.Sprintf("at most 16 agents run at once (got %d)", b.MaxAgents)}
	}
	if err := s.Browser.validate(); err != nil {
		return err
	}
	return s.Navigation.validate()
}

// validate checks every host pattern, naming the field and the entry: a
// list is checked whole, so the first bad entry is found wherever it is.
func (n Navigation) validate() error {
	allowed := map[string]bool{}
	for i, h := range n.AllowedHosts {
		if err := agents.ValidateHost(h); err != nil {
			return &FieldError{fmt.Sprintf("navigation.allowed_hosts[%d]", i), hostMessage(err)}
		}
		allowed[strings.ToLower(strings.TrimPrefix(h, "*."))] = true
	}
	for i, h := range n.BlockedHosts {
		if err := agents.ValidateHost(h); err != nil {
			return &FieldError{fmt.Sprintf("navigation.blocked_hosts[%d]", i), hostMessage(err)}
		}
		if allowed[strings.ToLower(strings.TrimPrefix(h, "*."))] {
			return &FieldError{fmt.Sprintf("navigation.blocked_hosts[%d]", i), fmt.Sprintf("%q is also an allowed host: remove it from one list", h)}
		}
	}
	return nil
}

// hostMessage is a host pattern's error without the sentinel's words,
// which the field already says.
func hostMessage(err error) string {
	return strings.TrimPrefix(err.Error(), agents.ErrBadHost.Error()+": ")
}

// validateModelAPI checks the API and the reasoning efforts.
func (s Settings) validateModelAPI() error {
	if _, err := agents.ParseAPI(s.ModelAPI); err != nil {
		return &FieldError{"model_api", fmt.Sprintf("must be auto, chat or responses (got %q)", s.ModelAPI)}
	}
	for field, v := range map[string]string{"planner_effort": s.PlannerEffort, "executor_effort": s.ExecutorEffort} {
		if _, err := agents.ParseEffort(v); err != nil {
			return &FieldError{field, fmt.Sprintf("must be empty or one of none, minimal, low, medium, high, xhigh, max (got %q)", v)}
		}
	}
	return nil
}

func validateBaseURL(raw string) error {
	const field = "base_url"
	if strings.TrimSpace(raw) == "" {
		return &FieldError{field, "must be set, e.g. " + DefaultBaseURL + " or http://localhost:11434/v1"}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return &FieldError{field, fmt.Sprintf("%q is not a URL: %v", raw, err)}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return &FieldError{field, fmt.Sprintf("%q must start with http:// or https://", raw)}
	}
	if u.Host == "" {
		return &FieldError{field, fmt.Sprintf("%q has no host", raw)}
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return &FieldError{field, fmt.Sprintf("%q must not have a query or fragment", raw)}
	}
	return nil
}

// SettingsStore reads and writes the settings file. Writes are atomic: a
// reader sees the old file or the new one, never half of either.
type SettingsStore struct {
	// Path is the JSON file, normally <user config dir>/vroom/settings.json.
	Path string
}

// DefaultSettingsPath is where settings live unless VROOM_CONFIG_DIR says
// otherwise.
func DefaultSettingsPath() (string, error) {
	if dir := os.Getenv("VROOM_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, "settings.json"), nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("settings path: %w", err)
	}
	return filepath.Join(dir, "vroom", "settings.json"), nil
}

// Load returns the stored settings, or the defaults when there is no file
// yet. A file that does not parse or validate is an error, never silently
// replaced.
func (s SettingsStore) Load() (Settings, error) {
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		return DefaultSettings(), nil
	}
	if err != nil {
		return Settings{}, fmt.Errorf("load settings: %w", err)
	}
	st, err := DecodeSettings(data)
	if err != nil {
		return Settings{}, fmt.Errorf("load settings %s: %w", s.Path, err)
	}
	return st, nil
}

// DecodeSettings parses and validates a settings document. Unknown fields are
// rejected so a typo does not silently do nothing.
func DecodeSettings(data []byte) (Settings, error) {
	st := DefaultSettings()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return Settings{}, decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Settings{}, fmt.Errorf("%w: trailing data after the settings object", ErrInvalidSettings)
	}
	if err := st.Validate(); err != nil {
		return Settings{}, err
	}
	return st, nil
}

func decodeError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		return &FieldError{typeErr.Field, fmt.Sprintf("expected %s, got a JSON %s", typeErr.Type, typeErr.Value)}
	case errors.As(err, &syntaxErr):
		return fmt.Errorf("%w: not valid JSON at byte %d: %v", ErrInvalidSettings, syntaxErr.Offset, err)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &FieldError{name, "is not a setting Vroom knows (check the spelling)"}
	default:
		return fmt.Errorf("%w: %v", ErrInvalidSettings, err)
	}
}

// Save validates st and replaces the file atomically. An invalid st leaves the
// previous file untouched.
func (s SettingsStore) Save(st Settings) error {
	if err := st.Validate(); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	if err := writeFileAtomic(s.Path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	return nil
}

// writeFileAtomic writes to a temporary file in the same directory, syncs it
// and renames it over path, so a crash mid-write cannot leave half a file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	// The rename is durable only once the directory is synced; a failure
	// there means the settings may not survive a crash, which the person
	// must hear about like any other failed save.
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	if err := d.Close(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
