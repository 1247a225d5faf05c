package cli

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
)

// TestFaultRunBrowserKilled: `vroom run` as a real
// process, its own Chromium SIGKILLed once the executor is at work: exit 1
// within 2 s of the death, and stderr and the JSON events say the browser
// closed.
func TestFaultRunBrowserKilled(t *testing.T) {
	needBrowser(t)
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	srv.Then("planner", apptest.Call("spawn", "task", "quote", "url", s.URL+"/quote.html"), apptest.Call("wait", "mode", "all"), apptest.Done("never", true))
	working := make(chan struct{})
	var once sync.Once
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(*modeltest.Request) modeltest.Reply {
		once.Do(func() { close(working) })
		return modeltest.Slow(time.Minute, apptest.Call("read_page"))
	}})
	r := startCLI(t, "sk-test-fault", nil, "run", "--json", "--profile", "persistent", "--base-url", srv.URL, "--model", "executor", "--planner-model", "planner", "get a quote")
	r.await(t, working, 30*time.Second, "the executor calling the model")
	died := testenv.KillChromium(t, filepath.Join(r.dir, "profile"))
	err := r.wait(t, 10*time.Second)
	took := r.exitedAt.Sub(died)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v\n%s", err, r.err.String())
	}
	if took > 2*time.Second {
		t.Fatalf("exited %v after the browser died", took)
	}
	t.Logf("vroom run exited 1, %v after the browser died; stderr:\n%s", took, r.err.String())
	if !strings.Contains(r.err.String(), "vroom run: the browser closed") {
		t.Errorf("stderr does not say the browser closed:\n%s", r.err.String())
	}
	if !strings.Contains(r.out.String(), `"summary":"the browser closed`) || !strings.Contains(r.out.String(), `"state":"failed"`) {
		t.Errorf("the JSON events do not say the browser closed:\n%s", r.out.String())
	}
	if n := len(srv.Requests("")); n != 3 {
		t.Errorf("%d model calls; 3 expected (spawn, wait, the executor's in-flight one)", n)
	}
}

// TestFaultRunKeyRefused: a 401 stops vroom run at once: exit 1, one
// request (no retry), and stderr says the key was refused and where to
// set it.
func TestFaultRunKeyRefused(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	srv := modeltest.New(t)
	srv.Then("planner", modeltest.Reply{Status: http.StatusUnauthorized})
	env := testEnv(t, srv)
	var out, errb bytes.Buffer
	start := time.Now()
	code := runTask(context.Background(), []string{"anything"}, env, &out, &errb)
	if code != 1 || time.Since(start) > 5*time.Second {
		t.Fatalf("exit %d after %v\n%s", code, time.Since(start), errb.String())
	}
	for _, want := range []string{"the API key was refused", "401", "OPENAI_API_KEY", "Settings"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, errb.String())
		}
	}
	if n := len(srv.Requests("")); n != 1 {
		t.Errorf("%d model calls", n)
	}
}
