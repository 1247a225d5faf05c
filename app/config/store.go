package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Store reads and writes the settings file. Writes are atomic: a
// reader sees the old file or the new one, never half of either.
type Store struct {
	// Path is the JSON file, normally <user config dir>/vroom/settings.json.
	Path string
}

// DefaultPath is where settings live unless VROOM_CONFIG_DIR says
// otherwise.
func DefaultPath() (string, error) {
	if dir := os.Getenv("VROOM_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, "settings.json"), nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("settings path: %w", err)
	}
	return filepath.Join(dir, "vroom", "settings.json"), nil
}

// Load returns the stored settings, or the defaults when there is no file
// yet. A file that does not parse or validate is an error, never silently
// replaced.
func (s Store) Load() (Settings, error) {
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		return DefaultSettings(), nil
	}
	if err != nil {
		return Settings{}, fmt.Errorf("load settings: %w", err)
	}
	st, err := decodeSettings(data)
	if err != nil {
		return Settings{}, fmt.Errorf("load settings %s: %w", s.Path, err)
	}
	return st, nil
}

// decodeSettings parses and validates a settings document. Unknown fields are
// rejected so a typo does not silently do nothing.
func decodeSettings(data []byte) (Settings, error) {
	st := DefaultSettings()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return Settings{}, decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Settings{}, fmt.Errorf("%w: trailing data after the settings object", ErrInvalidSettings)
	}
	if err := st.Validate(); err != nil {
		return Settings{}, err
	}
	return st, nil
}

func decodeError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		return &FieldError{typeErr.Field, fmt.Sprintf("expected %s, got a JSON %s", typeErr.Type, typeErr.Value)}
	case errors.As(err, &syntaxErr):
		return fmt.Errorf("%w: not valid JSON at byte %d: %v", ErrInvalidSettings, syntaxErr.Offset, err)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &FieldError{name, "is not a setting Vroom knows (check the spelling)"}
	default:
		return fmt.Errorf("%w: %v", ErrInvalidSettings, err)
	}
}

// Save validates st and replaces the file atomically. An invalid st leaves the
// previous file untouched.
func (s Store) Save(st Settings) error {
	if err := st.Validate(); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	if err := writeFileAtomic(s.Path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	return nil
}

// writeFileAtomic writes to a temporary file in the same directory, syncs it
// and renames it over path, so a crash mid-write cannot leave half a file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	// The rename is durable only once the directory is synced; a failure
	// there means the settings may not survive a crash, which the person
	// must hear about like any other failed save.
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	if err := d.Close(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
