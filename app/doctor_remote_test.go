package app

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
)

// deadEndpoint is an http:// endpoint on a loopback port nothing listens
// on any more, with a token that must never be printed.
func deadEndpoint(t *testing.T) (url, token string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	token = "doctor-secret-4711"
	return "http://" + addr + "?token=" + token, token
}

// TestDoctorRemoteBrowsers: with endpoints in the settings, vroom doctor
// checks each of them instead of the local Chromium. A real Chromium
// started with --remote-debugging-port=0 passes with its version; a dead
// port fails with the fix and exit 1, its token never printed.
func TestDoctorRemoteBrowsers(t *testing.T) {
	live := startChromium(t)
	dead, token := deadEndpoint(t)
	srv := doctorServer(t)

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
	var out, errb bytes.Buffer
	code = runDoctor(context.Background(), nil, env, &out, &errb)
	t.Logf("\n%s", out.String())
	if code != 1 {
		t.Fatalf("a dead endpoint: exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"✓ remote browser 1", "✗ remote browser 2", "token=***", "fix: start the remote browser", "1 required check failed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String()+errb.String(), token) || strings.Contains(out.String(), "✓ Chromium") {
		t.Errorf("the token was printed, or Chromium checked:\n%s%s", out.String(), errb.String())
	}
}
