package cli

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"vroom/app/internal/apptest"
)

// TestDoctorCLIMissingChromiumAndSound: vroom doctor as a process, with
// VROOM_CHROME pointing nowhere and no sound server: Chromium ✗ (exit 1),
// sound ✗ but not required.
func TestDoctorCLIMissingChromiumAndSound(t *testing.T) {
	t.Parallel()
	srv := apptest.DoctorModel(t)
	dir := t.TempDir()
	env := []string{"VROOM_CHROME=/nonexistent", "PULSE_SERVER=unix:" + filepath.Join(dir, "no-such-socket"), "ALSA_CONFIG_PATH=/dev/null"}
	cmd := vroomCmd(dir, "sk-doctor-cli", env, "doctor", "--base-url", srv.URL, "--model", "executor", "--planner-model", "gpt-6-astra", "--timeout", "20s")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v\n%s%s", err, out.String(), errb.String())
	}
	t.Logf("\n%s", out.String())
	for _, want := range []string{"✗ Chromium", "VROOM_CHROME=/nonexistent", "fix: install Chromium",
		"✗ sound server", "(not required)", "fix: start PulseAudio", "✓ planner model   gpt-6-astra through the Responses API",
		"✓ API key         ••••-cli, from the environment", "1 required check failed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}
