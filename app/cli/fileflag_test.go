package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vroom/app/config"
	"vroom/app/runner"
)

// --file is repeatable, made absolute and checked to exist; a missing
// one names the flag and the path. The files given, with the paths the
// task names, are all the run may upload.
func TestFileFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cv, letter := filepath.Join(dir, "cv.pdf"), filepath.Join(dir, "letter.txt")
	for _, f := range []string{cv, letter} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st := config.DefaultSettings()
	o, err := parseRunArgs([]string{"--file", cv, "apply", "with my CV"}, st, &bytes.Buffer{})
	if err != nil || !slices.Equal(o.Files, []string{cv}) {
		t.Fatalf("%+v, %v", o.Files, err)
	}
	var stderr bytes.Buffer
	gone := filepath.Join(dir, "gone.pdf")
	if _, err := parseRunArgs([]string{"--file", gone, "apply"}, st, &stderr); err == nil || !strings.Contains(err.Error(), "-file") || !strings.Contains(err.Error(), gone) {
		t.Errorf("--file %s: %v, want the flag and the path named", gone, err)
	}
	if got := runner.GivenFiles("attach "+letter+", and /no/such/file.", o.Files); !slices.Equal(got, []string{cv, letter}) {
		t.Errorf("the run's files: %v", got)
	}
}
