package doctor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vroom/app/config"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// doctorEnvFor checks srv with a key from the environment and a temporary
// data directory.
func doctorEnvFor(t *testing.T, srv *modeltest.Server) Env {
	st := config.DefaultSettings()
	st.BaseURL = srv.URL
	st.PlannerModel, st.ExecutorModel = "gpt-6-astra", "executor"
	st.TTSModel, st.STTModel = "tts", "stt"
	return Env{
		Settings: st, SettingsPath: "settings.json", DataDir: t.TempDir(), Deadline: 20 * time.Second,
		Key: func(context.Context) (string, config.KeySource, error) {
			return "sk-doctor-key", config.KeyFromEnv, nil
		},
	}
}

// runDoctorRows runs the checks in env: vroom doctor's exit code (1 when
// a required check failed) and the rows by name.
func runDoctorRows(t *testing.T, env Env) (int, map[string]CheckRow) {
	t.Helper()
	rows := Run(context.Background(), env)
	byName := map[string]CheckRow{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	return exitOf(rows), byName
}

// runDoctorTable runs the checks in env: vroom doctor's exit code and the
// table it prints.
func runDoctorTable(t *testing.T, env Env) (int, string) {
	t.Helper()
	rows := Run(context.Background(), env)
	var out bytes.Buffer
	if err := Print(&out, rows); err != nil {
		t.Fatal(err)
	}
	return exitOf(rows), out.String()
}

// exitOf is vroom doctor's exit code for rows.
func exitOf(rows []CheckRow) int {
	if RequiredFailed(rows) > 0 {
		return 1
	}
	return 0
}

// TestDoctorPasses: every check passes, exit 0; the table says which API
// each model is spoken to with.
func TestDoctorPasses(t *testing.T) {
	apptest.NeedChromium(t)
	testenv.NeedPulse(t)
	t.Parallel()
	srv := apptest.DoctorModel(t)
	code, out := runDoctorTable(t, doctorEnvFor(t, srv))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	t.Logf("\n%s", out)
	for _, want := range []string{
		"✓ planner model   gpt-6-astra through the Responses API: called the tool",
		"✓ executor model  executor through Chat Completions: called the tool",
		"✓ vision model    executor through Chat Completions, with an image: called the tool",
		"✓ API key         ••••-key, from the environment", "✓ model server", "✓ speech", "✓ transcription",
		"✓ Chromium", "✓ sound server", "✓ data directory", "every required check passed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
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
	apptest.NeedChromium(t)
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(*testing.T, *modeltest.Server, *Env)
		code  int
		row   string
		fix   string
	}{
		{"server down", func(t *testing.T, s *modeltest.Server, _ *Env) { s.Close() }, 1, "model server", "start the server"},
		{"prose", func(t *testing.T, s *modeltest.Server, e *Env) {
			e.Settings.ExecutorModel = "chatty"
			s.Script("chatty", modeltest.Step{Times: -1, Reply: modeltest.Text("Ready! How can I help?")})
		}, 1, "executor model", "calls tools"},
		{"400 to tools", func(t *testing.T, s *modeltest.Server, e *Env) {
			e.Settings.PlannerModel = "no-tools"
			s.Script("no-tools", modeltest.Step{Times: -1, Reply: modeltest.Reply{Status: 400}})
		}, 1, "planner model", "refused the request"},
		{"wrong key", func(t *testing.T, s *modeltest.Server, _ *Env) { s.RequireKey("sk-the-right-one") }, 1, "model server", "refused the key"},
		{"data dir", func(t *testing.T, _ *modeltest.Server, e *Env) {
			file := filepath.Join(t.TempDir(), "file")
			os.WriteFile(file, nil, 0o600)
			e.DataDir = filepath.Join(file, "vroom")
		}, 1, "data directory", "VROOM_DATA_DIR"},
		{"vision only", func(t *testing.T, s *modeltest.Server, e *Env) {
			e.Settings.VisionModel = "blind"
			s.Script("blind", modeltest.Step{Times: -1, Reply: modeltest.Reply{Status: 400}})
		}, 0, "vision model", "takes images"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := apptest.DoctorModel(t)
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
