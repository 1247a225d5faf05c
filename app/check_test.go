package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vroom/app/config"
	"vroom/app/doctor"
	"vroom/app/internal/apptest"
)

// TestDoctorUsesSessionDataDir: Settings' Check writes where the session
// keeps its runs (Options.DataDir), not where VROOM_DATA_DIR points.
func TestDoctorUsesSessionDataDir(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	t.Setenv("VROOM_DATA_DIR", elsewhere)
	store := config.Store{Path: filepath.Join(t.TempDir(), "settings.json")}
	st := config.DefaultSettings()
	st.BaseURL = "http://127.0.0.1:1/v1" // nothing answers: the model checks end at once
	if err := store.Save(st); err != nil {
		t.Fatal(err)
	}
	a := New(Options{Store: store, Keyring: apptest.Keyring{}, Detect: noServer, Log: quiet, Getenv: noEnv, DataDir: dir})
	a.startup(t.Context())
	rows, err := a.Doctor()
	if err != nil {
		t.Fatal(err)
	}
	var data *doctor.CheckRow
	for i := range rows {
		if rows[i].Name == "data directory" {
			data = &rows[i]
		}
	}
	if data == nil || !data.OK || !strings.Contains(data.Detail, dir) {
		t.Fatalf("data directory row %+v, want %s checked", data, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs")); err != nil {
		t.Errorf("the session's runs directory was not checked: %v", err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "runs")); err == nil {
		t.Errorf("the check wrote to VROOM_DATA_DIR (%s), not the session's data directory", elsewhere)
	}
}
