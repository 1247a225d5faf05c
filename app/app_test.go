package app

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/app/config"
	"vroom/app/internal/apptest"
)

// stuckKeyring never answers, like a locked keyring waiting for a prompt.
type stuckKeyring struct{ release chan struct{} }

func (k stuckKeyring) Get(string, string) (string, error) { <-k.release; return "", errors.New("late") }

func (k stuckKeyring) Set(string, string, string) error { <-k.release; return errors.New("late") }

func (k stuckKeyring) Delete(string, string) error { <-k.release; return errors.New("late") }

// quiet discards the app's log in tests.
var quiet = slog.New(slog.DiscardHandler)

func noServer(context.Context) (config.LocalServer, bool) { return config.LocalServer{}, false }

// noEnv is an environment without OPENAI_API_KEY.
func noEnv(string) string { return "" }

// A keyring that never answers yields the plain timeout error within the
// deadline, and a key being saved is kept for the session only.
func TestKeyringDeadline(t *testing.T) {
	t.Parallel()
	stuck := stuckKeyring{release: make(chan struct{})}
	t.Cleanup(func() { close(stuck.release) })
	dir := t.TempDir()
	a := New(Options{
		Store:          config.Store{Path: filepath.Join(dir, "settings.json")},
		Keyring:        stuck,
		KeyringTimeout: 50 * time.Millisecond,
		Detect:         noServer,
		Log:            quiet,
		Getenv:         noEnv,
	})

	done := make(chan struct{})
	go func() {
		defer close(done)
		a.startup(t.Context())
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("startup hung on a keyring that never answers")
	}
	st, _ := a.State()
	if !strings.Contains(st.Notice, "did not answer") {
		t.Errorf("notice = %q, want the keyring timeout explained", st.Notice)
	}

	_, err := a.secrets.SetAPIKey(t.Context(), "sk-session-only-9999")
	if !errors.Is(err, config.ErrKeyringTimeout) {
		t.Fatalf("SetAPIKey err = %v, want ErrKeyringTimeout", err)
	}
	st, err = a.SetAPIKey("sk-session-only-9999")
	if err != nil {
		t.Fatalf("App.SetAPIKey: %v", err)
	}
	if st.KeySource != config.KeyFromSession || st.KeyHint != "••••9999" {
		t.Errorf("state = %+v, want the key kept for this session", st)
	}
	if !strings.Contains(st.Notice, "this session only") {
		t.Errorf("notice = %q", st.Notice)
	}
	// Nothing on disk holds the key.
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "sk-session-only") {
				t.Errorf("%s holds the key in plain text", p)
			}
		}
		return nil
	})
}

// With no key, a local OpenAI-compatible server is offered, and accepting it
// points the settings at it with a model it serves.
func TestStartupOffersLocalServer(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[{"id":"llama3.1:8b","object":"model"}]}`))
	}))
	t.Cleanup(srv.Close)
	silent := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(silent.Close)

	candidates := []config.LocalServer{{Name: "Silent", BaseURL: silent.URL + "/v1"}, {Name: "Ollama", BaseURL: srv.URL + "/v1"}}
	path := filepath.Join(t.TempDir(), "settings.json")
	a := New(Options{
		Store:   config.Store{Path: path},
		Keyring: apptest.Keyring{},
		Log:     quiet,
		Getenv:  noEnv,
		Detect: func(ctx context.Context) (config.LocalServer, bool) {
			return config.DetectLocalServer(ctx, candidates, 2*time.Second)
		},
	})
	a.startup(t.Context())
	st, _ := a.State()
	if st.Offer == nil || st.Offer.Name != "Ollama" || !st.NeedsSetup {
		t.Fatalf("state = %+v, want Ollama offered and setup needed", st)
	}
	st, err := a.UseLocalServer()
	if err != nil {
		t.Fatal(err)
	}
	if st.Settings.BaseURL != srv.URL+"/v1" || st.Settings.ExecutorModel != "llama3.1:8b" || st.NeedsSetup {
		t.Fatalf("after UseLocalServer: %+v", st)
	}
	saved, err := (config.Store{Path: path}).Load()
	if err != nil || saved.BaseURL != srv.URL+"/v1" {
		t.Fatalf("saved settings = %+v, %v", saved, err)
	}
}

// With no key and no local server the one line says what is needed.
func TestStartupNeedsKey(t *testing.T) {
	t.Parallel()
	a := New(Options{Store: config.Store{Path: filepath.Join(t.TempDir(), "s.json")}, Keyring: apptest.Keyring{}, Detect: noServer, Log: quiet, Getenv: noEnv})
	a.startup(t.Context())
	st, _ := a.State()
	if !st.NeedsSetup || !strings.Contains(st.Notice, "add an API key") {
		t.Fatalf("state = %+v", st)
	}
}

// A settings file that does not validate is reported and left alone; the app
// runs on defaults and says so.
func TestStartupWithBrokenSettingsFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "settings.json")
	broken := []byte(`{"base_url":"api.openai.com"}`)
	if err := os.WriteFile(path, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	a := New(Options{Store: config.Store{Path: path}, Keyring: apptest.Keyring{}, Detect: noServer, Log: quiet})
	a.startup(t.Context())
	st, err := a.State()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.Notice, "could not be used") || !strings.Contains(st.Notice, "base_url") {
		t.Errorf("notice = %q, want it to explain the broken file", st.Notice)
	}
	if st.Settings.BaseURL != config.DefaultBaseURL {
		t.Errorf("running on %q, want the defaults", st.Settings.BaseURL)
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(broken) {
		t.Errorf("startup rewrote the broken file to %s", after)
	}
}
