package doctor

import (
	"strings"
	"testing"

	"vroom/app/internal/apptest"
)

// TestDoctorRemoteBrowsers: with endpoints in the settings, vroom doctor
// checks each of them instead of the local Chromium. A real Chromium
// started with --remote-debugging-port=0 passes with its version; a dead
// port fails with the fix and exit 1, its token never printed.
func TestDoctorRemoteBrowsers(t *testing.T) {
	live := apptest.RemoteChromium(t)
	dead, token := apptest.DeadEndpoint(t)
	srv := apptest.DoctorModel(t)

	env := doctorEnvFor(t, srv)
	env.Settings.Browser.Endpoints = []string{live.HTTP}
	code, rows := runDoctorRows(t, env)
	r, ok := rows["remote browser 1"]
	if code != 0 || !ok || !r.OK || !r.Required || !strings.Contains(r.Detail, "answers: ") || !strings.Contains(r.Detail, "Chrome/") {
		t.Fatalf("a live endpoint: exit %d, row %+v", code, r)
	}
	if _, ok := rows["Chromium"]; ok {
		t.Errorf("the local Chromium was checked with remote browsers set: %+v", rows["Chromium"])
	}

	env.Settings.Browser.Endpoints = []string{live.WS, dead}
	code, out := runDoctorTable(t, env)
	t.Logf("\n%s", out)
	if code != 1 {
		t.Fatalf("a dead endpoint: exit %d\n%s", code, out)
	}
	for _, want := range []string{"✓ remote browser 1", "✗ remote browser 2", "token=***", "fix: start the remote browser", "1 required check failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, token) || strings.Contains(out, "✓ Chromium") {
		t.Errorf("the token was printed, or Chromium checked:\n%s", out)
	}
}
