package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/zalando/go-keyring"
)

// Keyring service and user under which the API key is stored.
const (
	keyringService = "vroom"
	keyringUser    = "openai-api-key"
)

// ErrKeyringTimeout means the OS keyring did not answer in time; a locked
// keyring waiting for an unlock prompt looks like this.
var ErrKeyringTimeout = errors.New("the system keyring did not answer in time")

// ErrNoKey means no API key is configured anywhere.
var ErrNoKey = errors.New("no API key configured")

// Keyring is the part of the OS secret store Vroom uses. go-keyring satisfies
// it through SystemKeyring; tests substitute a store that never answers.
type Keyring interface {
	Get(service, user string) (string, error)
	Set(service, user, password string) error
	Delete(service, user string) error
}

// SystemKeyring is the OS keyring (Secret Service on Linux, Keychain on macOS,
// Credential Manager on Windows) through go-keyring. On Linux without a
// D-Bus session bus every call fails with ErrNoSessionBus before go-keyring
// is asked, so that no bus or keyring daemon is started (sessionbus.go).
type SystemKeyring struct{}

// Get reads a secret.
func (SystemKeyring) Get(service, user string) (string, error) {
	if !haveSessionBus() {
		return "", ErrNoSessionBus
	}
	return keyring.Get(service, user)
}

// Set stores a secret.
func (SystemKeyring) Set(service, user, password string) error {
	if !haveSessionBus() {
		return ErrNoSessionBus
	}
	return keyring.Set(service, user, password)
}

// Delete removes a secret.
func (SystemKeyring) Delete(service, user string) error {
	if !haveSessionBus() {
		return ErrNoSessionBus
	}
	return keyring.Delete(service, user)
}

// KeySource says where the API key in use came from, so the UI can tell the
// person whether it will survive a restart.
type KeySource string

// Key sources, in order of precedence.
const (
	KeyFromEnv     KeySource = "environment"
	KeyFromKeyring KeySource = "keyring"
	KeyFromSession KeySource = "session" // the keyring failed; kept in memory only
	KeyNone        KeySource = "none"
)

// Secrets holds the API key. It reads and writes the keyring with a deadline
// on every call, because go-keyring has none and a locked keyring can wait
// forever. When the keyring fails the key is kept for this session only and
// never written to disk.
type Secrets struct {
	store   Keyring
	timeout time.Duration
	getenv  func(string) string

	mu      sync.Mutex
	session string // set only when the keyring refused the key
}

// NewSecrets returns a Secrets over store, giving each keyring call
// timeout. getenv reads OPENAI_API_KEY, which wins over the keyring; nil
// is the process's environment.
func NewSecrets(store Keyring, timeout time.Duration, getenv func(string) string) *Secrets {
	if getenv == nil {
		getenv = os.Getenv
	}
	return &Secrets{store: store, timeout: timeout, getenv: getenv}
}

// call runs fn with the deadline. fn keeps running in its goroutine if it
// hangs; there is no way to cancel go-keyring, and the result is discarded.
func (s *Secrets) call(ctx context.Context, op string, fn func() (string, error)) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	type result struct {
		v   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := fn()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return "", fmt.Errorf("keyring %s: %w", op, r.err)
		}
		return r.v, nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("keyring %s after %v: %w", op, s.timeout, ErrKeyringTimeout)
		}
		return "", fmt.Errorf("keyring %s: %w", op, ctx.Err())
	}
}

// APIKey returns the key in use and where it came from. OPENAI_API_KEY wins
// over the keyring. A keyring error is returned alongside a usable session
// key so the UI can warn without losing it.
func (s *Secrets) APIKey(ctx context.Context) (string, KeySource, error) {
	if k := s.getenv("OPENAI_API_KEY"); k != "" {
		return k, KeyFromEnv, nil
	}
	s.mu.Lock()
	session := s.session
	s.mu.Unlock()
	if session != "" {
		return session, KeyFromSession, nil
	}
	k, err := s.call(ctx, "read", func() (string, error) { return s.store.Get(keyringService, keyringUser) })
	if errors.Is(err, keyring.ErrNotFound) {
		return "", KeyNone, ErrNoKey
	}
	if err != nil {
		return "", KeyNone, err
	}
	return k, KeyFromKeyring, nil
}

// SetAPIKey stores key in the keyring. If the keyring fails or times out,
// the key is kept in memory for this session and the error says so; it is
// never written to disk in plain text.
func (s *Secrets) SetAPIKey(ctx context.Context, key string) (KeySource, error) {
	if key == "" {
		return KeyNone, errors.New("set API key: the key is empty")
	}
	_, err := s.call(ctx, "write", func() (string, error) { return "", s.store.Set(keyringService, keyringUser, key) })
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.session = key
		return KeyFromSession, err
	}
	s.session = ""
	return KeyFromKeyring, nil
}

// DeleteAPIKey forgets the key in the keyring and in this session.
func (s *Secrets) DeleteAPIKey(ctx context.Context) error {
	s.mu.Lock()
	s.session = ""
	s.mu.Unlock()
	_, err := s.call(ctx, "delete", func() (string, error) { return "", s.store.Delete(keyringService, keyringUser) })
	if errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}

// KeyringTimeout bounds every keyring call: long enough for a slow D-Bus
// round trip, short enough that a locked keyring waiting on a prompt is
// reported instead of freezing the window.
const KeyringTimeout = 3 * time.Second

// MaskKey shows a key's last four characters, never the key: what
// Settings and vroom doctor display.
func MaskKey(key string) string {
	if len(key) <= 8 {
		return "••••"
	}
	return "••••" + key[len(key)-4:]
}
