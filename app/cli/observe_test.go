package cli

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vroom/app/internal/apptest"
	"vroom/browser"
)

func TestObserveCommand(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	srv := httptest.NewServer(apptest.PageServer("."))
	t.Cleanup(srv.Close)
	ctx := t.Context()
	var out, errOut bytes.Buffer
	if code := Observe(ctx, nil, &out, &errOut); code != 2 {
		t.Errorf("no URL: exit %d", code)
	}
	shot := filepath.Join(t.TempDir(), "page.png")
	out.Reset()
	errOut.Reset()
	if code := Observe(ctx, []string{"--screenshot", shot, "--marks", srv.URL + "/form.html"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), `e1 textbox "First name"`) || !strings.Contains(errOut.String(), "observed in") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
	if b, err := os.ReadFile(shot); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("screenshot: %v", err)
	}
	out.Reset()
	if code := Observe(ctx, []string{"--json", "--query", "Save", srv.URL + "/form.html"}, &out, &errOut); code != 0 {
		t.Fatalf("json: exit %d", code)
	}
	var o browser.Observation
	if err := json.Unmarshal(out.Bytes(), &o); err != nil || len(o.Controls) != 1 || o.Controls[0].Name != "Save draft" {
		t.Errorf("json: %v %s", err, out.String())
	}
}

// TestObserveRemote: vroom observe --remote with a loopback Chromium's
// http:// address, resolved through /json/version as the remote browsers
// setting is (browser.ConnectEndpoint). --chrome points nowhere, so only
// the remote browser can have answered. A dead endpoint fails without
// printing its token; an address that is no endpoint is bad usage.
func TestObserveRemote(t *testing.T) {
	rc := apptest.RemoteChromium(t)
	srv := httptest.NewServer(apptest.PageServer("."))
	t.Cleanup(srv.Close)
	ctx := t.Context()
	var out, errOut bytes.Buffer
	if code := Observe(ctx, []string{"--chrome", "/nonexistent", "--remote", rc.HTTP, srv.URL + "/form.html"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), `e1 textbox "First name"`) {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
	dead, token := apptest.DeadEndpoint(t)
	out.Reset()
	errOut.Reset()
	if code := Observe(ctx, []string{"--timeout", "10s", "--remote", dead, srv.URL + "/form.html"}, &out, &errOut); code != 1 ||
		strings.Contains(errOut.String(), token) || !strings.Contains(errOut.String(), "token=***") {
		t.Errorf("a dead endpoint: exit %d, stderr %s", code, errOut.String())
	}
	if code := Observe(ctx, []string{"--remote", "127.0.0.1:9222", srv.URL + "/form.html"}, &out, &errOut); code != 2 {
		t.Errorf("an address without a scheme: exit %d", code)
	}
}
