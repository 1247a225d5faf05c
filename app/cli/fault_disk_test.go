package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// TestFaultDiskFull: the run log's disk fills up while vroom run goes on
// (a 64 KB tmpfs with 8 KB free): the run stops at once, exits 1 naming
// the log and the cause, and nothing claims success with a cut log.
func TestFaultDiskFull(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	srv.Then("planner", apptest.Call("spawn", "task", "read the quote desk", "url", s.URL+"/quote.html"), apptest.Call("wait", "mode", "all"),
		apptest.Done("read it", true))
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if r.ToolResults() >= 40 {
			return apptest.Done("read it many times", true)
		}
		return apptest.Call("read_page")
	}})
	env := testEnv(t, srv)
	testenv.SmallDisk(t, filepath.Join(env.DataDir, "runs"), 64<<10, 8<<10)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errb testkit.LockedBuffer
	code := runTask(ctx, []string{"read the desk"}, env, &out, &errb)
	t.Logf("stdout:\n%s\nstderr:\n%s", apptest.Tail(out.String(), 1500), errb.String())
	if code != 1 {
		t.Fatalf("exit %d: want 1", code)
	}
	msg := errb.String()
	logs, _ := filepath.Glob(filepath.Join(env.DataDir, "runs", "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("run logs %v", logs)
	}
	for _, want := range []string{"vroom run: the run log cannot be written: " + logs[0] + ": no space left on device", "free some disk space"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if strings.Contains(out.String(), "run done") || !strings.Contains(out.String(), "run failed") {
		t.Errorf("stdout does not end with the run failed")
	}
	// The disk filled on one of the first steps, and the run stopped there.
	if n := len(srv.Requests("executor")); n >= 40 {
		t.Errorf("the executor went on for %d calls after the disk filled", n)
	}
}
