package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vroom/app/config"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// report is the tool call a doctor probe asks for.
var report = modeltest.Call("report", map[string]string{"word": "ready"})

// doctorServer answers every probe: the planner on gpt-6-astra (the
// Responses API), the executor, and the vision model, which is the
// executor's, on "executor" (Chat Completions).
func doctorServer(t *testing.T) *modeltest.Server {
	srv := modeltest.New(t)
	srv.Script("gpt-6-astra", modeltest.Step{Times: -1, Reply: report})
	srv.Script("executor", modeltest.Step{Times: -1, Reply: report})
	return srv
}

// doctorEnvFor checks srv with a key from the environment and a temporary
// data directory.
func doctorEnvFor(t *testing.T, srv *modeltest.Server) doctorEnv {
	st := config.DefaultSettings()
	st.BaseURL = srv.URL
	st.PlannerModel, st.ExecutorModel = "gpt-6-astra", "executor"
	st.TTSModel, st.STTModel = "tts", "stt"
	return doctorEnv{
		Settings: st, SettingsPath: "settings.json", DataDir: t.TempDir(), Deadline: 20 * time.Second,
		Key: func(context.Context) (string, config.KeySource, error) {
			return "sk-doctor-key", config.KeyFromEnv, nil
		},
	}
}

// runDoctorRows runs vroom doctor --json in env: the exit code and the
// rows by name.
func runDoctorRows(t *testing.T, env doctorEnv, args ...string) (int, map[string]CheckRow) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runDoctor(context.Background(), append([]string{"--json"}, args...), env, &out, &errb)
	var rows []CheckRow
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("exit %d, output %q: %v; stderr %s", code, out.String(), err, errb.String())
	}
	byName := map[string]CheckRow{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	return code, byName
}

// TestDoctorPasses: every check passes, exit 0; the table says which API
// each model is spoken to with.
func TestDoctorPasses(t *testing.T) {
	needBrowser(t)
	testenv.NeedPulse(t)
	t.Parallel()
	srv := doctorServer(t)
	var out, errb bytes.Buffer
	if code := runDoctor(context.Background(), nil, doctorEnvFor(t, srv), &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	t.Logf("\n%s", out.String())
	for _, want := range []string{
		"✓ planner model   gpt-6-astra through the Responses API: called the tool",
		"✓ executor model  executor through Chat Completions: called the tool",
		"✓ vision model    executor through Chat Completions, with an image: called the tool",
		"✓ API key         ••••-key, from the environment", "✓ model server", "✓ speech", "✓ transcription",
		"✓ Chromium", "✓ sound server", "✓ data directory", "every required check passed",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
	if r := srv.Requests("gpt-6-astra"); len(r) != 1 || r[0].API != modeltest.APIResponses {
		t.Errorf("planner requests %d", len(r))
	}
	if r := srv.Requests("executor"); len(r) != 2 || r[0].API != modeltest.APIChat || len(r[1].Chat.Messages[1].MultiContent) != 2 {
		t.Errorf("executor and vision requests %d", len(r))
	}
	if len(srv.Speeches()) != 1 || len(srv.Uploads()) != 1 {
		t.Errorf("%d speeches, %d uploads", len(srv.Speeches()), len(srv.Uploads()))
	}
}

// TestDoctorModelFailures: each failure of the model server shows as ✗
// with its fix, and the exit code is 1 for a required check, 0 when only
// an optional one failed.
func TestDoctorModelFailures(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(*testing.T, *modeltest.Server, *doctorEnv)
		code  int
		row   string
		fix   string
	}{
		{"server down", func(t *testing.T, s *modeltest.Server, _ *doctorEnv) { s.Close() }, 1, "model server", "start the server"},
		{"prose", func(t *testing.T, s *modeltest.Server, e *doctorEnv) {
			e.Settings.ExecutorModel = "chatty"
			s.Script("chatty", modeltest.Step{Times: -1, Reply: modeltest.Text("Ready! How can I help?")})
		}, 1, "executor model", "calls tools"},
		{"400 to tools", func(t *testing.T, s *modeltest.Server, e *doctorEnv) {
			e.Settings.PlannerModel = "no-tools"
			s.Script("no-tools", modeltest.Step{Times: -1, Reply: modeltest.Reply{Status: 400}})
		}, 1, "planner model", "refused the request"},
		{"wrong key", func(t *testing.T, s *modeltest.Server, _ *doctorEnv) { s.RequireKey("sk-the-right-one") }, 1, "model server", "refused the key"},
		{"data dir", func(t *testing.T, _ *modeltest.Server, e *doctorEnv) {
			file := filepath.Join(t.TempDir(), "file")
			os.WriteFile(file, nil, 0o600)
			e.DataDir = filepath.Join(file, "vroom")
		}, 1, "data directory", "VROOM_DATA_DIR"},
		{"vision only", func(t *testing.T, s *modeltest.Server, e *doctorEnv) {
			e.Settings.VisionModel = "blind"
			s.Script("blind", modeltest.Step{Times: -1, Reply: modeltest.Reply{Status: 400}})
		}, 0, "vision model", "takes images"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := doctorServer(t)
			env := doctorEnvFor(t, srv)
			tc.setup(t, srv, &env)
			code, rows := runDoctorRows(t, env)
			r := rows[tc.row]
			if code != tc.code || r.OK || !strings.Contains(r.Fix, tc.fix) {
				t.Fatalf("exit %d (want %d); %s: %+v", code, tc.code, tc.row, r)
			}
			t.Logf("%s: ✗ %s — fix: %s", tc.row, r.Detail, r.Fix)
		})
	}
}

// TestDoctorCLIMissingChromiumAndSound: vroom doctor as a process, with
// VROOM_CHROME pointing nowhere and no sound server: Chromium ✗ (exit 1),
// sound ✗ but not required.
func TestDoctorCLIMissingChromiumAndSound(t *testing.T) {
	t.Parallel()
	srv := doctorServer(t)
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
