package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testkit"
)

// Files dropped on the omnibox make even a URL a task, and the run's
// planner is told of them; a file gone since it was dropped is refused,
// named, and no run starts.
func TestSubmitFiles(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	d.srv.Script("planner", modeltest.Step{Times: -1, Reply: apptest.Done("nothing to upload", true)})
	if _, err := d.SubmitFiles("example.com", nil, []string{"/no/such/cv.pdf"}); err == nil || !strings.Contains(err.Error(), "/no/such/cv.pdf") {
		t.Fatalf("a missing file: %v, want an error naming it", err)
	}
	if d.Run() != nil {
		t.Fatal("a run started with a missing file")
	}
	cv := filepath.Join(t.TempDir(), "cv.txt")
	if err := os.WriteFile(cv, []byte("my cv"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := d.SubmitFiles("example.com", nil, []string{cv})
	if err != nil || res.Kind != SubmitTask {
		t.Fatalf("a URL with a file: %+v, %v; want a task", res, err)
	}
	testkit.WaitFor(t, 20*time.Second, "the planner's first request", func() bool { return len(d.srv.Requests("planner")) > 0 })
	if text := d.srv.Requests("planner")[0].Text(); !strings.Contains(text, cv) {
		t.Errorf("the planner was not told of the file %s:\n%s", cv, text)
	}
}
