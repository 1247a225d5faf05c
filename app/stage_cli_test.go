package app

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"vroom/app/config"
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
