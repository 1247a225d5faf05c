package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zalando/go-keyring"

	"vroom/app/internal/apptest"
	"vroom/internal/testenv"
)

// The real gnome-keyring, through go-keyring: set, get, replace, delete.
func TestSystemKeyringRoundTrip(t *testing.T) {
	testenv.NeedSecretService(t)
	s := NewSecrets(SystemKeyring{}, 5*time.Second, func(string) string { return "" })
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

func TestEnvKeyOverridesKeyring(t *testing.T) {
	t.Parallel()
	s := NewSecrets(apptest.Keyring{}, time.Second, func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "sk-from-env"
		}
		return ""
	})
	if _, err := s.SetAPIKey(t.Context(), "sk-from-keyring"); err != nil {
		t.Fatal(err)
	}
	key, src, err := s.APIKey(t.Context())
	if err != nil || key != "sk-from-env" || src != KeyFromEnv {
		t.Fatalf("APIKey = %q, %v, %v; want the environment's key", key, src, err)
	}
}

// The keyring is asked only where a session bus is already there: an
// address, or systemd's bus in the user's runtime folder; no address (or
// "autolaunch:") and no such bus would make go-keyring launch one.
func TestSessionBusFound(t *testing.T) {
	t.Parallel()
	env := func(addr string) func(string) string {
		return func(k string) string {
			if k == "DBUS_SESSION_BUS_ADDRESS" {
				return addr
			}
			return ""
		}
	}
	empty, withBus := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(withBus, "bus"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		goos, addr, dir string
		want            bool
	}{
		{"linux", "unix:path=/run/user/1000/bus", empty, true},
		{"linux", "", empty, false},
		{"linux", "autolaunch:", empty, false},
		{"linux", "", withBus, true},
		{"freebsd", "", empty, false},
		{"darwin", "", empty, true},
		{"windows", "", empty, true},
	} {
		if got := sessionBus(tc.goos, env(tc.addr), tc.dir); got != tc.want {
			t.Errorf("sessionBus(%s, %q, %s) = %v, want %v", tc.goos, tc.addr, tc.dir, got, tc.want)
		}
	}
}
