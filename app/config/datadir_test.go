package config

import "testing"

// TestDataDir: VROOM_DATA_DIR wins, then XDG_DATA_HOME.
func TestDataDir(t *testing.T) {
	t.Setenv("VROOM_DATA_DIR", "/tmp/vroom-data")
	t.Setenv("XDG_DATA_HOME", "/tmp/xdg")
	if d, _ := DataDir(); d != "/tmp/vroom-data" {
		t.Fatal(d)
	}
	t.Setenv("VROOM_DATA_DIR", "")
	if d, _ := DataDir(); d != "/tmp/xdg/vroom" {
		t.Fatal(d)
	}
}
