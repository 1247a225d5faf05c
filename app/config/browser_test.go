package config

import (
	"errors"
	"strings"
	"testing"
)

// TestBrowserSettingsInvalid: a bad endpoint is an error naming the field,
// and the previous settings file stays.
func TestBrowserSettingsInvalid(t *testing.T) {
	t.Parallel()
	st := DefaultSettings()
	st.Browser.Endpoints = []string{"ws://farm:3000?token=k", "ftp://nope"}
	err := st.Validate()
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "browser.endpoints[1]" || !strings.Contains(fe.Message, "ws://") {
		t.Fatalf("Validate: %v", err)
	}
	store := Store{Path: t.TempDir() + "/settings.json"}
	good := DefaultSettings()
	good.Browser.Endpoints = []string{"http://127.0.0.1:9222"}
	if err := store.Save(good); err != nil {
		t.Fatal(err)
	}
	if err := store.Save(st); err == nil {
		t.Fatal("saved settings with a bad endpoint")
	}
	if got, err := store.Load(); err != nil || len(got.Browser.Endpoints) != 1 || got.Browser.Endpoints[0] != "http://127.0.0.1:9222" {
		t.Fatalf("the previous settings did not stay: %+v, %v", got.Browser, err)
	}
}
