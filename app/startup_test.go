package app

import (
	"strings"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// TestRunWithoutBrowser: vroom run starts its browser in the background;
// one that cannot start ends the run with exit 1 naming the cause, whether
// it failed before the run watched the browser or after.
func TestRunWithoutBrowser(t *testing.T) {
	t.Setenv("VROOM_CHROME", "/nonexistent/chromium")
	srv := modeltest.New(t)
	// Slow enough that a run the failure did not reach would still be
	// going when the failure (at once: no such file) is seen.
	srv.Script("planner", modeltest.Step{Times: -1, Reply: modeltest.Slow(5*time.Second, apptest.Done("finished", true))})
	env := testEnv(t, srv)
	env.Browser = nil
	var out, errb strings.Builder
	if code := runTask(apptest.Context(t), []string{"look something up"}, env, &out, &errb); code != 1 {
		t.Fatalf("exit %d; stderr %q", code, errb.String())
	}
	if !strings.Contains(errb.String(), "/nonexistent/chromium") {
		t.Errorf("stderr does not name the browser: %q", errb.String())
	}
}
