package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// A run whose log cannot be written (a full disk) and whose events cannot
// be printed (stdout closed) fails with the log's error; Close returns
// both errors, the log's marked ErrRunLogIncomplete, instead of dropping
// them.
func TestBuiltRunReportsCloseErrors(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.Step{Reply: apptest.Done("nothing to do", true)})
	dir := t.TempDir()
	const id = "20260101-000000-abcd"
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/full", filepath.Join(dir, "runs", id+".jsonl")); err != nil {
		t.Fatal(err)
	}
	st := config.DefaultSettings()
	st.BaseURL, st.PlannerModel, st.ExecutorModel = srv.URL, "planner", "executor"
	closed := errors.New("stdout is closed")
	var mu sync.Mutex
	var tried []agents.EventKind
	b, err := BuildRun(t.Context(), RunSpec{ID: id, Task: "nothing", Browser: testBrowser, Settings: st, DataDir: dir, CloseTabs: true,
		Events: func(e agents.Event) error {
			mu.Lock()
			defer mu.Unlock()
			tried = append(tried, e.Kind)
			return closed
		}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Execute(t.Context())
	if !errors.Is(err, agents.ErrRunLogWrite) || res.Success {
		t.Fatalf("the run on a full disk ended with %+v, %v", res, err)
	}
	cerr := b.Close()
	if !errors.Is(cerr, ErrRunLogIncomplete) || !errors.Is(cerr, closed) {
		t.Fatalf("Close returned %v", cerr)
	}
	if again := b.Close(); again != cerr {
		t.Fatalf("a second Close returned %v", again)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(tried) != 1 {
		t.Fatalf("events after the printer failed: %v", tried)
	}
}

// Without a key, a run against a remote server is refused before anything
// is created; against a local one it needs none.
func TestBuildRunNeedsKey(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	dir := t.TempDir()
	st := config.DefaultSettings()
	st.BaseURL = "https://api.example.com/v1"
	noKey := func(context.Context) (string, error) { return "", config.ErrNoKey }
	_, err := BuildRun(t.Context(), RunSpec{Task: "x", Browser: testBrowser, Settings: st, DataDir: dir, Key: noKey})
	if !errors.Is(err, ErrNoAPIKey) || !strings.Contains(err.Error(), st.BaseURL) {
		t.Fatalf("BuildRun without a key: %v", err)
	}
	// No keyring (no session bus) is no key; a keyring that failed has
	// given none, and says why after.
	noBus := func(context.Context) (string, error) {
		return "", fmt.Errorf("keyring read: %w", config.ErrNoSessionBus)
	}
	_, err = BuildRun(t.Context(), RunSpec{Task: "x", Browser: testBrowser, Settings: st, DataDir: dir, Key: noBus})
	if !errors.Is(err, ErrNoAPIKey) || err.Error() != "no API key for "+st.BaseURL {
		t.Fatalf("BuildRun without a session bus: %v", err)
	}
	locked := func(context.Context) (string, error) { return "", config.ErrKeyringTimeout }
	_, err = BuildRun(t.Context(), RunSpec{Task: "x", Browser: testBrowser, Settings: st, DataDir: dir, Key: locked})
	if !errors.Is(err, ErrNoAPIKey) || !strings.Contains(err.Error(), "did not answer in time") {
		t.Fatalf("BuildRun with a keyring that did not answer: %v", err)
	}
	if logs, _ := filepath.Glob(filepath.Join(dir, "runs", "*")); len(logs) != 0 {
		t.Fatalf("a refused run left logs %v", logs)
	}
	st.BaseURL = "http://127.0.0.1:1/v1"
	b, err := BuildRun(t.Context(), RunSpec{Task: "x", Browser: testBrowser, Settings: st, DataDir: dir, Key: noKey})
	if err != nil {
		t.Fatalf("BuildRun for a local server: %v", err)
	}
	// Never executed: Close does not wait for an end that cannot come.
	start := time.Now()
	if err := b.Close(); err != nil || time.Since(start) > drainWait/2 {
		t.Fatalf("Close of an unexecuted run: %v after %v", err, time.Since(start))
	}
}
