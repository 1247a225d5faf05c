package app

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"vroom/agents"
	"vroom/app/config"
)

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
	if code := runDoctor(context.Background(), []string{"--api", "soap"}, doctorEnv{Settings: st}, &out, &errb); code != 2 {
		t.Fatalf("doctor exit %d", code)
	}
}
