package browser

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestObserveCommand(t *testing.T) {
	t.Parallel()
	ctx := tctxFor(t, 90*time.Second)
	var out, errOut bytes.Buffer
	if code := ObserveCommand(ctx, nil, &out, &errOut); code != 2 {
		t.Errorf("no URL: exit %d", code)
	}
	shot := filepath.Join(t.TempDir(), "page.png")
	out.Reset()
	errOut.Reset()
	if code := ObserveCommand(ctx, []string{"--screenshot", shot, "--marks", site.URL + "/form.html"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), `e1 textbox "Email"`) || !strings.Contains(errOut.String(), "observed in") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
	if b, err := os.ReadFile(shot); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("screenshot: %v", err)
	}
	out.Reset()
	if code := ObserveCommand(ctx, []string{"--json", "--query", "Save", site.URL + "/form.html"}, &out, &errOut); code != 0 {
		t.Fatalf("json: exit %d", code)
	}
	var o Observation
	if err := json.Unmarshal(out.Bytes(), &o); err != nil || len(o.Controls) != 1 || o.Controls[0].Name != "Save" {
		t.Errorf("json: %v %s", err, out.String())
	}
}
