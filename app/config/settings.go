package config

import (
	"errors"
	"fmt"
	"net/url"
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
	// remote browsers (browser.go).
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

// Error names the field and says what is wrong with it.
func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Unwrap makes every FieldError match ErrInvalidSettings.
func (e *FieldError) Unwrap() error { return ErrInvalidSettings }

// Validate reports the first problem with s, naming the field.
func (s Settings) Validate() error {
	if err := ValidateBaseURL(s.BaseURL); err != nil {
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
	if err := s.Browser.Validate(); err != nil {
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

// ValidateBaseURL checks a model server's base URL: http or https, a
// host, no query or fragment. The error names the base_url field.
func ValidateBaseURL(raw string) error {
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

// IsLocal reports whether baseURL is a server on this computer, which
// needs no API key.
func IsLocal(baseURL string) bool {
	return strings.Contains(baseURL, "://localhost") || strings.Contains(baseURL, "://127.0.0.1") || strings.Contains(baseURL, "://[::1]")
}
