package cli

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/doctor"
	"vroom/app/runner"
	"vroom/internal/modeltest"
)

// --allow-host is repeatable and checked; a bad one names the flag.
func TestAllowHostFlags(t *testing.T) {
	t.Parallel()
	st := config.DefaultSettings()
	o, err := parseRunArgs([]string{"--allow-host", "docs.test", "--allow-host=localhost:8080", "--allow-any-host", "read", "docs"}, st, &bytes.Buffer{})
	if err != nil || !slices.Equal(o.AllowHosts, []string{"docs.test", "localhost:8080"}) || !o.AllowAnyHost {
		t.Fatalf("%+v, %v", o, err)
	}
	for bad, say := range map[string]string{
		"https://docs.test": "is a URL", "": "is empty", "docs.test/x": "no paths", "docs.test:0": "port",
	} {
		var stderr bytes.Buffer
		_, err := parseRunArgs([]string{"--allow-host", bad, "read"}, st, &stderr)
		if err == nil || !strings.Contains(err.Error(), "-allow-host") || !strings.Contains(err.Error(), say) {
			t.Errorf("--allow-host %q: %v, want the flag named and %q", bad, err, say)
		}
	}
}

// The policy in Settings is the one a run gets, through the one builder
// the desktop and vroom run share, with the flags over it and the run's
// first sites from the task.
func TestSettingsPolicyIsTheRunsPolicy(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	srv := modeltest.New(t)
	st := config.DefaultSettings()
	st.BaseURL, st.PlannerModel, st.ExecutorModel = srv.URL, "planner", "executor"
	st.Navigation = config.Navigation{AllowedHosts: []string{"docs.test", "localhost"}, BlockedHosts: []string{"ads.docs.test"}, AskBeforeLeaving: true}
	o, err := parseRunArgs([]string{"--allow-host", "localhost:9", "summarise https://docs.test/intro"}, st, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	env := runEnv{Settings: st, DataDir: t.TempDir()}
	spec := o.spec(env, testBrowser, newEventPrinter(&bytes.Buffer{}, false), &stderr)
	spec.Key = func(context.Context) (string, error) { return "sk-test-key", nil }
	b, err := runner.BuildRun(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := b.Run.Policy()
	if !slices.Equal(p.Allow, st.Navigation.AllowedHosts) || !slices.Equal(p.Block, st.Navigation.BlockedHosts) || !p.ConfirmLeaveOrigin || p.AllowAnyHost {
		t.Fatalf("the run's policy %+v is not the settings' %+v", p, st.Navigation)
	}
	if !slices.Equal(p.Sites, []string{"localhost:9", "docs.test"}) {
		t.Fatalf("the run's first sites %q, want the flag's and the task's", p.Sites)
	}
	if !slices.Contains(p.Secrets, "sk-test-key") {
		t.Fatal("the API key is not among the values that never leave the sites")
	}
}

// TestBrowserFlags: a bad --browser is an error naming the flag; "local"
// empties the settings' list.
func TestBrowserFlags(t *testing.T) {
	t.Parallel()
	st := config.DefaultSettings()
	st.Browser.Endpoints = []string{"ws://farm:3000?token=k"}
	for _, tc := range []struct{ args, want string }{
		{"--browser ws:// task", "--browser: ws: has no host"},
		{"--browser chrome://x task", "--browser: chrome://x: want ws://"},
		{"--browser ws://a:1 --browser ws://a:1 task", "listed twice"},
	} {
		_, err := parseRunArgs(strings.Fields(tc.args), config.DefaultSettings(), &strings.Builder{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.args, err, tc.want)
		}
	}
	o, err := parseRunArgs([]string{"--browser", "local", "task"}, st, &strings.Builder{})
	if err != nil || len(o.Browsers) != 0 {
		t.Errorf("--browser local: %v, %v", o.Browsers, err)
	}
}

// TestModelAPISettingsAndFlags: the API and the efforts are settings,
// checked with the field named, and vroom run's flags override them; the
// defaults are today's OpenAI models, spoken to through the Responses API.
func TestModelAPISettingsAndFlags(t *testing.T) {
	t.Parallel()
	st := config.DefaultSettings()
	m := agents.NewModel(st.Model("k", ""))
	if m.APIFor(agents.RolePlanner) != agents.APIResponses || m.APIFor(agents.RoleExecutor) != agents.APIResponses {
		t.Fatalf("defaults %s/%s spoken to through %s/%s", st.PlannerModel, st.ExecutorModel, m.APIFor(agents.RolePlanner), m.APIFor(agents.RoleExecutor))
	}
	for field, edit := range map[string]func(*config.Settings){
		"model_api":       func(s *config.Settings) { s.ModelAPI = "soap" },
		"planner_effort":  func(s *config.Settings) { s.PlannerEffort = "extreme" },
		"executor_effort": func(s *config.Settings) { s.ExecutorEffort = "lots" },
	} {
		s := config.DefaultSettings()
		edit(&s)
		var fe *config.FieldError
		if err := s.Validate(); !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%s: %v", field, err)
		}
	}
	o, err := parseRunArgs([]string{"--api", "chat", "--planner-effort", "high", "--effort", "none", "task"}, st, &bytes.Buffer{})
	if err != nil || o.API != "chat" || o.PlannerEffort != "high" || o.ExecutorEffort != "none" {
		t.Fatalf("%+v %v", o, err)
	}
	spec := o.spec(runEnv{Settings: st}, nil, newEventPrinter(&bytes.Buffer{}, false), &bytes.Buffer{})
	if spec.Settings.ModelAPI != "chat" || spec.Settings.PlannerEffort != "high" || spec.Settings.ExecutorEffort != "none" {
		t.Fatalf("spec settings %+v", spec.Settings)
	}
	var out, errb bytes.Buffer
	if code := runTask(context.Background(), []string{"--api", "soap", "task"}, runEnv{Settings: st, DataDir: t.TempDir()}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--api") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if code := runDoctor(context.Background(), []string{"--api", "soap"}, doctor.Env{Settings: st}, &out, &errb); code != 2 {
		t.Fatalf("doctor exit %d", code)
	}
}

// vroom run passes its own words into agents' refusals: with nobody to
// ask, a refusal names the flag that would have allowed it.
func TestRunFlagsAreTheRefusalsHints(t *testing.T) {
	t.Parallel()
	o, err := parseRunArgs([]string{"read the docs"}, config.DefaultSettings(), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	spec := o.spec(runEnv{Settings: config.DefaultSettings(), DataDir: t.TempDir()}, nil, newEventPrinter(&bytes.Buffer{}, false), &bytes.Buffer{})
	h := spec.Hints
	if h.LeaveSites == nil || h.LeaveSites("docs.test:8080") != "--allow-host docs.test:8080 or --allow-any-host" {
		t.Fatalf("leaving the sites: %+v", h)
	}
	if h.Irreversible != "--allow-irreversible" {
		t.Fatalf("irreversible actions: %q", h.Irreversible)
	}
}
