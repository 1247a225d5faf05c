package cli

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// tempFolder is a temp folder of a vroom run's own (its TMPDIR), short
// enough for Chromium's socket paths, removed when the test ends.
func tempFolder(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "vroom-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// entries lists what is in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// tempRun is vroom run as a process with a temp folder and a mark of its
// own, its executor calling the model (working closed) for a minute at
// each step unless quick.
func tempRun(t *testing.T, quick bool, extra ...string) (r *cliRun, tmp, mark string, working <-chan struct{}) {
	t.Helper()
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	srv.Then("planner", apptest.Call("spawn", "task", "quote", "url", s.URL+"/quote.html"), apptest.Call("wait", "mode", "all"), apptest.Done("read it", true))
	w := make(chan struct{})
	var once sync.Once
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(*modeltest.Request) modeltest.Reply {
		once.Do(func() { close(w) })
		if quick {
			return apptest.Done("the desk quotes on request", true)
		}
		return modeltest.Slow(time.Minute, apptest.Call("read_page"))
	}})
	tmp = tempFolder(t)
	markEnv, mark := markOf(t)
	args := append([]string{"run", "--base-url", srv.URL, "--model", "executor", "--planner-model", "planner"}, extra...)
	r = startCLI(t, "sk-test-temp", []string{"TMPDIR=" + tmp, markEnv}, append(args, "get a quote")...)
	return r, tmp, mark, w
}

// leftAsItWas fails the test unless the run's temp folder is as empty
// as it was before, and nothing the run started is still running.
func leftAsItWas(t *testing.T, tmp, mark string) {
	t.Helper()
	if left := entries(t, tmp); len(left) > 0 {
		t.Errorf("left in the temp folder: %v", left)
	}
	noneLeft(t, mark)
}

// TestFaultTempFolderLeftAsItWas: whatever ends a vroom run — its task
// done, Ctrl-C, its browser killed — its temp folder is as it was before
// (Chromium's ProcessSingleton folder and throwaway profile gone) and no
// process it started is left running.
func TestFaultTempFolderLeftAsItWas(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	t.Run("done", func(t *testing.T) {
		t.Parallel()
		r, tmp, mark, _ := tempRun(t, true)
		if before := entries(t, tmp); len(before) > 0 {
			t.Fatalf("the temp folder was not empty: %v", before)
		}
		if code := exitCodeOf(r.wait(t, 60*time.Second)); code != 0 {
			t.Fatalf("exit %d\n%s", code, r.err.String())
		}
		leftAsItWas(t, tmp, mark)
	})
	t.Run("ctrl-c", func(t *testing.T) {
		t.Parallel()
		r, tmp, mark, working := tempRun(t, false)
		r.await(t, working, 30*time.Second, "the executor at work")
		if during := entries(t, tmp); len(during) == 0 {
			t.Errorf("nothing in the temp folder while Chromium ran: is TMPDIR used?")
		}
		if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		if code := exitCodeOf(r.wait(t, 15*time.Second)); code != 1 {
			t.Fatalf("exit %d\n%s", code, r.err.String())
		}
		leftAsItWas(t, tmp, mark)
	})
	t.Run("browser-killed", func(t *testing.T) {
		t.Parallel()
		r, tmp, mark, working := tempRun(t, false, "--profile", "persistent")
		r.await(t, working, 30*time.Second, "the executor at work")
		testenv.KillChromium(t, filepath.Join(r.dir, "profile"))
		if code := exitCodeOf(r.wait(t, 15*time.Second)); code != 1 {
			t.Fatalf("exit %d\n%s", code, r.err.String())
		}
		leftAsItWas(t, tmp, mark)
	})
}
