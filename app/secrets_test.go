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

	"github.com/zalando/go-keyring"

	"vroom/internal/testenv"
)

// memKeyring is an in-memory store for tests of code around the keyring.
type memKeyring map[string]string

func (m memKeyring) Get(s, u string) (string, error) {
	if v, ok := m[s+"/"+u]; ok {
		return v, nil
	}
	return "", keyring.ErrNotFound
}
func (m memKeyring) Set(s, u, p string) error { m[s+"/"+u] = p; return nil }
func (m memKeyring) Delete(s, u string) error { delete(m, s+"/"+u); return nil }

// stuckKeyring never answers, like a locked keyring waiting for a prompt.
type stuckKeyring struct{ release chan struct{} }

func (k stuckKeyring) Get(string, string) (string, error) { <-k.release; return "", errors.New("late") }
func (k stuckKeyring) Set(string, string, string) error   { <-k.release; return errors.New("late") }
func (k stuckKeyring) Delete(string, string) error        { <-k.release; return errors.New("late") }

// quiet discards the app's log in tests.
var quiet = slog.New(slog.DiscardHandler)

func noServer(context.Context) (LocalServer, bool) { return LocalServer{}, false }

// The real gnome-keyring, through go-keyring: set, get, replace, delete.
func TestSystemKeyringRoundTrip(t *testing.T) {
	testenv.NeedSecretService(t)
	s := NewSecrets(SystemKeyring{}, 5*time.Second)
	s.getenv = func(string) string { return "" }
	ctx := t.Context()
	t.Cleanup(func() { s.DeleteAPIKey(context.Background()) })

	if src, err := s.SetAPIKey(ctx, "sk-test-first-1234"); err != nil || src != KeyFromKeyring {
		t.Fatalf("SetAPIKey = %v, %v; want keyring, nil", src, err)
	}
	if src, err := s.SetAPIKey(ctx, "sk-test-second-5678"); err != nil || src != KeyFromKeyring {
		t.Fatalf("replace = %v, %v", src, err)
	}
	// Read back through a fresh go-keyring call, not through our cache.
	got, err := keyring.Get(keyringService, keyringUser)
	if err != nil || got != "sk-test-second-5678" {
		t.Fatalf("keyring.Get = %q, %v", got, err)
	}
	key, src, err := s.APIKey(ctx)
	if err != nil || key != "sk-test-second-5678" || src != KeyFromKeyring {
		t.Fatalf("APIKey = %q, %v, %v", key, src, err)
	}
	if err := s.DeleteAPIKey(ctx); err != nil {
		t.Fatalf("DeleteAPIKey: %v", err)
	}
	if _, err := keyring.Get(keyringService, keyringUser); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("after delete keyring.Get err = %v, want ErrNotFound", err)
	}
	if _, _, err := s.APIKey(ctx); !errors.Is(err, ErrNoKey) {
		t.Fatalf("after delete APIKey err = %v, want ErrNoKey", err)
	}
	// Deleting what is not there is not an error.
	if err := s.DeleteAPIKey(ctx); err != nil {
		t.Fatalf("second delete: %v", err)
	}
}

// A keyring that never answers yields the plain timeout error within the
// deadline, and a key being saved is kept for the session only.
func TestKeyringDeadline(t *testing.T) {
	t.Parallel()
	stuck := stuckKeyring{release: make(chan struct{})}
	t.Cleanup(func() { close(stuck.release) })
	dir := t.TempDir()
	a := New(Options{
		Store:          SettingsStore{Path: filepath.Join(dir, "settings.json")},
		Keyring:        stuck,
		KeyringTimeout: 50 * time.Millisecond,
		Detect:         noServer,
		Log:            quiet,
	})
	a.secrets.getenv = func(string) string { return "" }

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
	if !errors.Is(err, ErrKeyringTimeout) {
		t.Fatalf("SetAPIKey err = %v, want ErrKeyringTimeout", err)
	}
	st, err = a.SetAPIKey("sk-session-only-9999")
	if err != nil {
		t.Fatalf("App.SetAPIKey: %v", err)
	}
	if st.KeySource != KeyFromSession || st.KeyHint != "••••9999" {
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

func TestEnvKeyOverridesKeyring(t *testing.T) {
	t.Parallel()
	s := NewSecrets(memKeyring{}, time.Second)
	s.getenv = func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "sk-from-env"
		}
		return ""
	}
	if _, err := s.SetAPIKey(t.Context(), "sk-from-keyring"); err != nil {
		t.Fatal(err)
	}
	key, src, err := s.APIKey(t.Context())
	if err != nil || key != "sk-from-env" || src != KeyFromEnv {
		t.Fatalf("APIKey = %q, %v, %v; want the environment's key", key, src, err)
	}
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

	candidates := []LocalServer{{Name: "Silent", BaseURL: silent.URL + "/v1"}, {Name: "Ollama", BaseURL: srv.URL + "/v1"}}
	path := filepath.Join(t.TempDir(), "settings.json")
	a := New(Options{
		Store:   SettingsStore{Path: path},
		Keyring: memKeyring{},
		Log:     quiet,
		Detect: func(ctx context.Context) (LocalServer, bool) {
			return DetectLocalServer(ctx, candidates, 2*time.Second)
		},
	})
	a.secrets.getenv = func(string) string { return "" }
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
	saved, err := (SettingsStore{Path: path}).Load()
	if err != nil || saved.BaseURL != srv.URL+"/v1" {
		t.Fatalf("saved settings = %+v, %v", saved, err)
	}
}

// With no key and no local server the one line says what is needed.
func TestStartupNeedsKey(t *testing.T) {
	t.Parallel()
	a := New(Options{Store: SettingsStore{Path: filepath.Join(t.TempDir(), "s.json")}, Keyring: memKeyring{}, Detect: noServer, Log: quiet})
	a.secrets.getenv = func(string) string { return "" }
	a.startup(t.Context())
	st, _ := a.State()
	if !st.NeedsSetup || !strings.Contains(st.Notice, "add an API key") {
		t.Fatalf("state = %+v", st)
	}
}
