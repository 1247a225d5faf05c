package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSettingsRoundTrip(t *testing.T) {
	t.Parallel()
	store := Store{Path: filepath.Join(t.TempDir(), "vroom", "settings.json")}
	got, err := store.Load()
	if err != nil {
		t.Fatalf("load with no file: %v", err)
	}
	if got.BaseURL != DefaultBaseURL || got.Budgets.MaxStepsPerAgent != 100 {
		t.Fatalf("defaults not used: %+v", got)
	}
	got.BaseURL = "http://localhost:11434/v1"
	got.ExecutorModel = "llama3.1"
	if err := store.Save(got); err != nil {
		t.Fatalf("save: %v", err)
	}
	again, err := store.Load()
	if err != nil {
		t.Fatalf("reload: %v", err)
	}
	if again.BaseURL != got.BaseURL || again.ExecutorModel != "llama3.1" {
		t.Fatalf("reload = %+v, want %+v", again, got)
	}
	info, err := os.Stat(store.Path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("settings file mode %v, want 0600", info.Mode().Perm())
	}
	// No temporary files are left beside it.
	entries, _ := os.ReadDir(filepath.Dir(store.Path))
	if len(entries) != 1 {
		t.Errorf("settings dir holds %d entries, want only the settings file", len(entries))
	}
}

// Every invalid input gets its own message naming the field, and the file
// already on disk is left byte for byte as it was.
func TestSettingsInvalidInputKeepsFile(t *testing.T) {
	t.Parallel()
	store := Store{Path: filepath.Join(t.TempDir(), "settings.json")}
	good := DefaultSettings()
	good.PlannerModel = "keep-me"
	if err := store.Save(good); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(store.Path)
	if err != nil {
		t.Fatal(err)
	}

	mutate := func(f func(*Settings)) Settings {
		s := DefaultSettings()
		f(&s)
		return s
	}
	cases := []struct {
		name  string
		in    Settings
		field string
		say   string
	}{
		{"empty url", mutate(func(s *Settings) { s.BaseURL = "" }), "base_url", "must be set"},
		{"not a url", mutate(func(s *Settings) { s.BaseURL = "localhost:11434" }), "base_url", "http:// or https://"},
		{"bad scheme", mutate(func(s *Settings) { s.BaseURL = "ftp://example.com/v1" }), "base_url", "http:// or https://"},
		{"no host", mutate(func(s *Settings) { s.BaseURL = "http:///v1" }), "base_url", "no host"},
		{"control chars", mutate(func(s *Settings) { s.BaseURL = "http://exa\x7fmple.com" }), "base_url", "not a URL"},
		{"query", mutate(func(s *Settings) { s.BaseURL = "https://x.example/v1?key=1" }), "base_url", "query"},
		{"no planner", mutate(func(s *Settings) { s.PlannerModel = " " }), "planner_model", "must name a model"},
		{"no executor", mutate(func(s *Settings) { s.ExecutorModel = "" }), "executor_model", "must name a model"},
		{"empty voice", mutate(func(s *Settings) { s.Voices = []string{"alloy", ""} }), "voices[1]", "must not be empty"},
		{"negative steps", mutate(func(s *Settings) { s.Budgets.MaxStepsPerAgent = -1 }), "budgets.max_steps_per_agent", "must not be negative"},
		{"negative cost", mutate(func(s *Settings) { s.Budgets.MaxRunCostUSD = -0.5 }), "budgets.max_run_cost_usd", "must not be negative"},
		{"zero agents", mutate(func(s *Settings) { s.Budgets.MaxAgents = 0 }), "budgets.max_agents", "greater than zero"},
		{"too many agents", mutate(func(s *Settings) { s.Budgets.MaxAgents = 99 }), "budgets.max_agents", "at most 16"},
	}
	seen := map[string]string{}
	for _, c := range cases {
		err := store.Save(c.in)
		var fe *FieldError
		if !errors.As(err, &fe) || !errors.Is(err, ErrInvalidSettings) {
			t.Errorf("%s: Save err = %v, want a FieldError wrapping ErrInvalidSettings", c.name, err)
			continue
		}
		if fe.Field != c.field || !strings.Contains(err.Error(), c.say) {
			t.Errorf("%s: err = %q (field %q), want field %q saying %q", c.name, err, fe.Field, c.field, c.say)
		}
		if prev, dup := seen[err.Error()]; dup {
			t.Errorf("%s and %s share the message %q", c.name, prev, err)
		}
		seen[err.Error()] = c.name
	}
	after, err := os.ReadFile(store.Path)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Fatalf("an invalid save changed the file:\n%s\nwas:\n%s", after, before)
	}
}

func TestDecodeSettingsErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, doc, say string
	}{
		{"unknown field", `{"base_url":"https://api.openai.com/v1","planer_model":"x"}`, `planer_model: is not a setting Vroom knows`},
		{"wrong type", `{"budgets":{"max_agents":"four"}}`, `budgets.max_agents: expected int`},
		{"syntax", `{"base_url": }`, `not valid JSON at byte`},
		{"trailing", `{} {}`, `trailing data`},
		{"negative budget", `{"budgets":{"max_run_tokens":-5}}`, `budgets.max_run_tokens: must not be negative (got -5)`},
		{"bad url", `{"base_url":"api.openai.com"}`, `base_url: "api.openai.com" must start with http:// or https://`},
	}
	for _, c := range cases {
		_, err := decodeSettings([]byte(c.doc))
		if !errors.Is(err, ErrInvalidSettings) || !strings.Contains(err.Error(), c.say) {
			t.Errorf("%s: err = %v, want ErrInvalidSettings saying %q", c.name, err, c.say)
		}
	}
}

// Every bad host in the navigation settings gets its own error naming the
// field and the entry, and the file on disk stays as it was.
func TestNavigationSettingsInvalid(t *testing.T) {
	t.Parallel()
	store := Store{Path: filepath.Join(t.TempDir(), "settings.json")}
	good := DefaultSettings()
	good.Navigation.BlockedHosts = []string{"ads.example.com"}
	if err := store.Save(good); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(store.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		allowed, blocked []string
		field, say       string
	}{
		{[]string{""}, nil, "navigation.allowed_hosts[0]", "is empty"},
		{[]string{"ok.test", "https://example.com"}, nil, "navigation.allowed_hosts[1]", "is a URL"},
		{[]string{"example.com/path"}, nil, "navigation.allowed_hosts[0]", "no paths"},
		{nil, []string{"exa mple.com"}, "navigation.blocked_hosts[0]", "spaces"},
		{nil, []string{"ok.test", "ex*ample.com"}, "navigation.blocked_hosts[1]", "wildcard"},
		{nil, []string{"example.com:70000"}, "navigation.blocked_hosts[0]", "port"},
		{nil, []string{"bad_host.com"}, "navigation.blocked_hosts[0]", "not a valid part"},
		{[]string{"shop.test"}, []string{"*.shop.test"}, "navigation.blocked_hosts[0]", "also an allowed host"},
	} {
		s := DefaultSettings()
		s.Navigation.AllowedHosts, s.Navigation.BlockedHosts = tc.allowed, tc.blocked
		err := store.Save(s)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Message, tc.say) || !errors.Is(err, ErrInvalidSettings) {
			t.Errorf("allowed %q blocked %q: %v, want %s: …%s…", tc.allowed, tc.blocked, err, tc.field, tc.say)
		}
		after, _ := os.ReadFile(store.Path)
		if !bytes.Equal(before, after) {
			t.Fatalf("the settings file changed after a bad save")
		}
	}
}

// A settings file from before the navigation settings asks before
// leaving; the lists round-trip.
func TestNavigationSettingsDefaults(t *testing.T) {
	t.Parallel()
	st, err := decodeSettings([]byte(`{"base_url": "https://api.openai.com/v1", "planner_model": "p", "executor_model": "e"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Navigation.AskBeforeLeaving {
		t.Fatal("asking before leaving the run's sites is off by default")
	}
	store := Store{Path: filepath.Join(t.TempDir(), "settings.json")}
	st.Navigation = Navigation{AllowedHosts: []string{"*.example.com", "localhost:8080"}, BlockedHosts: []string{"ads.test"}}
	if err := store.Save(st); err != nil {
		t.Fatal(err)
	}
	again, err := store.Load()
	if err != nil || again.Navigation.AskBeforeLeaving || !slices.Equal(again.Navigation.AllowedHosts, st.Navigation.AllowedHosts) {
		t.Fatalf("reload: %+v, %v", again.Navigation, err)
	}
}
