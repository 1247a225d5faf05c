package app

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vroom/internal/modeltest"
)

// Every bad host in the navigation settings gets its own error naming the
// field and the entry, and the file on disk stays as it was.
func TestNavigationSettingsInvalid(t *testing.T) {
	t.Parallel()
	store := SettingsStore{Path: filepath.Join(t.TempDir(), "settings.json")}
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
	st, err := DecodeSettings([]byte(`{"base_url": "https://api.openai.com/v1", "planner_model": "p", "executor_model": "e"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Navigation.AskBeforeLeaving {
		t.Fatal("asking before leaving the run's sites is off by default")
	}
	store := SettingsStore{Path: filepath.Join(t.TempDir(), "settings.json")}
	st.Navigation = Navigation{AllowedHosts: []string{"*.example.com", "localhost:8080"}, BlockedHosts: []string{"ads.test"}}
	if err := store.Save(st); err != nil {
		t.Fatal(err)
	}
	again, err := store.Load()
	if err != nil || again.Navigation.AskBeforeLeaving || !slices.Equal(again.Navigation.AllowedHosts, st.Navigation.AllowedHosts) {
		t.Fatalf("reload: %+v, %v", again.Navigation, err)
	}
}

// --allow-host is repeatable and checked; a bad one names the flag.
func TestAllowHostFlags(t *testing.T) {
	t.Parallel()
	st := DefaultSettings()
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
	st := DefaultSettings()
	st.BaseURL, st.PlannerModel, st.ExecutorModel = srv.URL, "planner", "executor"
	st.Navigation = Navigation{AllowedHosts: []string{"docs.test", "localhost"}, BlockedHosts: []string{"ads.docs.test"}, AskBeforeLeaving: true}
	o, err := parseRunArgs([]string{"--allow-host", "localhost:9", "summarise https://docs.test/intro"}, st, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	env := runEnv{Settings: st, DataDir: t.TempDir()}
	spec := o.spec(env, testBrowser, newEventPrinter(&bytes.Buffer{}, false), &stderr)
	spec.Key = func(context.Context) (string, error) { return "sk-test-key", nil }
	b, err := BuildRun(t.Context(), spec)
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
