package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/internal/apptest"
	"vroom/app/remote"
	"vroom/app/runner"
	"vroom/browser"
	"vroom/internal/modeltest"
)

// TestRunUsage: bad command lines exit 2 with a message, -h exits 0.
func TestRunUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{nil, 2, "no task given"},
		{[]string{"--profile", "shared", "task"}, 2, "--profile must be persistent or ephemeral"},
		{[]string{"--max-agents", "0", "task"}, 2, "--max-agents must be between 1 and 16"},
		{[]string{"--bogus", "task"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"--base-url", "ftp://x", "task"}, 2, "--base-url"},
		{[]string{"-h"}, 0, "usage: vroom run [flags]"},
	} {
		var out, errb bytes.Buffer
		env := runEnv{Settings: config.DefaultSettings(), DataDir: t.TempDir()}
		code := runTask(context.Background(), tc.args, env, &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.msg) {
			t.Errorf("vroom run %q: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), tc.code, tc.msg)
		}
	}
	var out, errb bytes.Buffer
	if code := Replay(context.Background(), nil, &out, &errb); code != 2 {
		t.Errorf("vroom replay with no run: exit %d", code)
	}
}

// TestRunFlagsOverSettings: flags override the settings file, in any
// position around the task.
func TestRunFlagsOverSettings(t *testing.T) {
	t.Parallel()
	st := config.DefaultSettings()
	o, err := parseRunArgs([]string{"--model", "m1", "find", "--max-steps", "7", "cheap flights", "--json"}, st, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Task != "find cheap flights" || o.Model != "m1" || o.MaxSteps != 7 || !o.JSON || o.PlannerModel != st.PlannerModel || o.BaseURL != st.BaseURL || o.MaxAgents != 4 {
		t.Fatalf("%+v", o)
	}
}

// TestRunCommand: vroom run --json drives a real tab to the task's end,
// exits 0, prints JSON lines, keeps a run log that vroom replay prints,
// and closes the tabs it opened. A failed run exits 1.
func TestRunCommand(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	for _, tc := range []struct {
		name    string
		success bool
		code    int
	}{{"success", true, 0}, {"failure", false, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := apptest.NewSite(t)
			srv := modeltest.New(t)
			srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "get a quote", "url": s.URL + "/quote.html"}))
			srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
				n := r.ToolResults()
				if n == 0 {
					return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Get quote"))
				}
				if m := apptest.QuoteRE.FindStringSubmatch(r.LastText()); m != nil {
					return apptest.Done("quote "+m[1], tc.success)
				}
				if n < 10 {
					return apptest.Call("read_page") // the quote's fetch may not have landed yet
				}
				return apptest.Done("no quote", false)
			}})
			env := testEnv(t, srv)
			var out, errb bytes.Buffer
			code := runTask(context.Background(), []string{"--json", "--max-agents", "2", "get me a quote"}, env, &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, errb.String())
			}
			// JSON lines, ending with the run's end.
			var kinds []agents.EventKind
			var lastData map[string]any
			sc := bufio.NewScanner(&out)
			for sc.Scan() {
				var e struct {
					Kind agents.EventKind `json:"kind"`
					Data map[string]any   `json:"data"`
				}
				if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
					t.Fatalf("not a JSON line: %q: %v", sc.Text(), err)
				}
				kinds = append(kinds, e.Kind)
				lastData = e.Data
			}
			if len(kinds) < 5 || kinds[len(kinds)-1] != agents.EventRun || lastData["success"] != tc.success {
				t.Fatalf("events %v, last %v", kinds, lastData)
			}
			s.State(func(s *apptest.Site) {
				if s.Quotes != 1 {
					t.Fatalf("%d quotes", s.Quotes)
				}
			})
			// The run log is there, and replays.
			logs, _ := filepath.Glob(filepath.Join(env.DataDir, "runs", "*.jsonl"))
			if len(logs) != 1 {
				t.Fatalf("run logs %v", logs)
			}
			var rep bytes.Buffer
			if code := Replay(context.Background(), []string{logs[0]}, &rep, &errb); code != 0 {
				t.Fatalf("replay exit %d: %s", code, errb.String())
			}
			// The click's own result carries the quote once it lands (the
			// diff's new prose), so read_page may never be needed.
			for _, want := range []string{"run_start", "spawn", "tool", "click", "run_done"} {
				if !strings.Contains(rep.String(), want) {
					t.Fatalf("replay lacks %q:\n%s", want, rep.String())
				}
			}
			// Every tab the run opened is closed.
			for _, tb := range testBrowser.Tabs(browser.TabQuery{}).Tabs {
				if strings.Contains(tb.URL, s.URL) {
					t.Fatalf("tab %s on the run's site is still open", tb.ID)
				}
			}
		})
	}
}

// TestRunCommandCancel: cancelling vroom run (what Ctrl-C does) while an
// executor waits on the model and another acts stops every agent and
// closes their tabs within 2 s, exiting 1.
func TestRunCommandCancel(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.Step{Match: modeltest.ToolResults(0), Reply: modeltest.Calls(
		modeltest.CallOf("spawn", map[string]any{"task": "one", "url": s.URL + "/quote.html"}),
		modeltest.CallOf("spawn", map[string]any{"task": "two", "url": s.URL + "/profile.html"}))},
		modeltest.Step{Times: -1, Reply: apptest.Call("wait", "mode", "all")})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var ids []string
	var cancelled time.Time
	env := testEnv(t, srv)
	var tabs *runner.Tabs
	env.Ready = func(b *runner.BuiltRun, _ *remote.Pool) { tabs = b.Tabs }
	arrived := 0
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		mu.Lock()
		defer mu.Unlock()
		arrived++
		if arrived == 2 && cancelled.IsZero() {
			ids = tabs.Opened()
			cancelled = time.Now()
			cancel() // Ctrl-C, while both executors wait on the model
		}
		return modeltest.Slow(time.Minute, apptest.Call("read_page"))
	}})
	var out, errb bytes.Buffer
	code := runTask(ctx, []string{"get two things"}, env, &out, &errb)
	mu.Lock()
	stopped := time.Since(cancelled)
	mu.Unlock()
	if code != 1 {
		t.Fatalf("exit %d; stderr %s", code, errb.String())
	}
	if stopped > 2*time.Second {
		t.Fatalf("took %v to stop after the cancel", stopped)
	}
	if len(ids) < 2 {
		t.Fatalf("opened %v", ids)
	}
	for _, id := range ids {
		if _, err := testBrowser.Tab(id); !errors.Is(err, browser.ErrTabClosed) {
			t.Fatalf("tab %s still open after the run stopped: %v", id, err)
		}
	}
	if !strings.Contains(out.String(), "run failed") || !strings.Contains(errb.String(), "interrupted") {
		t.Fatalf("stdout %s\nstderr %s", out.String(), errb.String())
	}
}

// TestRunCommandSIGINT: the real vroom run process, with its own
// Chromium, stops every agent and closes their tabs within 2 s of SIGINT,
// then shuts its browser down and exits 1. The browser's shutdown (about
// 0.7 s idle, seconds on a loaded machine) is bounded more loosely.
func TestRunCommandSIGINT(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.Step{Match: modeltest.ToolResults(0), Reply: apptest.Call("spawn", "task", "one", "url", s.URL+"/quote.html")},
		modeltest.Step{Times: -1, Reply: apptest.Call("wait", "mode", "all")})
	reached := make(chan struct{})
	var once sync.Once
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		once.Do(func() { close(reached) })
		return modeltest.Slow(time.Minute, apptest.Call("read_page"))
	}})
	r := startCLI(t, "sk-test-sigint", nil, "run", "--json", "--base-url", srv.URL, "--model", "executor", "--planner-model", "planner", "get a quote")
	r.await(t, reached, 30*time.Second, "the executor calling the model")
	sent := time.Now()
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := r.wait(t, 5*time.Second)
	took := r.exitedAt.Sub(sent)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v\n%s", err, r.err.String())
	}
	if took > 10*time.Second {
		t.Fatalf("took %v to exit after SIGINT", took)
	}
	t.Logf("exited %v after SIGINT (sent %v)", took, sent)
	if testing.Verbose() {
		logs, _ := filepath.Glob(filepath.Join(r.dir, "runs", "*.jsonl"))
		b, _ := os.ReadFile(logs[0])
		t.Logf("%s\n%s", b, r.err.String())
	}
	if !strings.Contains(r.out.String(), `"state":"failed"`) {
		t.Fatalf("stdout lacks the run's end:\n%s", r.out.String())
	}
	checkSIGINTLog(t, r.dir, sent)
}

// checkSIGINTLog checks the run log of a run stopped by SIGINT at sent:
// no key in it, and the kill and the closing of its tabs within 2 s.
func checkSIGINTLog(t *testing.T, dir string, sent time.Time) {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "runs", "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("run logs %v", logs)
	}
	b, _ := os.ReadFile(logs[0])
	if strings.Contains(string(b), "sk-test-sigint") {
		t.Fatal("the API key reached the run log")
	}
	recs, err := agents.ReadRunLog(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var killed, closed time.Time
	for _, r := range recs {
		switch r.Event {
		case agents.LogKilled:
			killed = r.Time
		case agents.LogTabsClosed:
			if r.Error == "" && r.Text != "0 tabs" {
				closed = r.Time
			}
		}
	}
	if killed.IsZero() || closed.IsZero() {
		t.Fatalf("run log lacks the kill or the closing of tabs:\n%s", b)
	}
	if d := closed.Sub(sent); d > 2*time.Second {
		t.Fatalf("agents stopped and tabs closed %v after SIGINT", d)
	}
	t.Logf("agents stopped %v and tabs closed %v after SIGINT", killed.Sub(sent), closed.Sub(sent))
}

// TestRunCommandTypedCorrection: a line typed while vroom run goes on
// reaches the executor's next prompt and the planner's as a correction
// from the user.
func TestRunCommandTypedCorrection(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	const correction = "use the terms-free desk"
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "get a quote", "url": s.URL + "/quote.html"}))
	pr, pw := io.Pipe()
	defer pw.Close()
	var once sync.Once
	srv.Script("executor",
		modeltest.Step{Match: modeltest.LastMessageContains(correction), Reply: apptest.Done("heard: "+correction, true)},
		modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
			once.Do(func() { go io.WriteString(pw, correction+"\n") })
			return modeltest.Slow(time.Minute, apptest.Call("read_page"))
		}})
	env := testEnv(t, srv)
	env.Stdin = pr
	var out, errb bytes.Buffer
	if code := runTask(apptest.Context(t), []string{"get me a quote"}, env, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errb.String(), out.String())
	}
	if !strings.Contains(out.String(), "[user] "+correction) {
		t.Fatalf("the correction is not in the event lines:\n%s", out.String())
	}
	heard := false
	for _, r := range srv.Requests("planner") {
		heard = heard || strings.Contains(r.Text(), "PRIORITY INSTRUCTION FROM THE USER (it overrides your task where they conflict): "+correction)
	}
	if !heard {
		t.Fatal("the planner never got the typed correction")
	}
}

// TestRunCommandVoice: with --voice an agent's message is spoken through
// the speech endpoint when a sound server answers, and the run goes on
// text-only when none does.
func TestRunCommandVoice(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "say hello", "url": s.URL + "/quote.html"}))
	srv.Script("executor",
		modeltest.Step{Match: modeltest.ToolResults(0), Reply: apptest.Call("speak", "text", "hello from the quote desk")},
		modeltest.Step{Match: modeltest.ToolResults(1), Reply: apptest.Done("said hello", true)})
	env := testEnv(t, srv)
	var out, errb bytes.Buffer
	if code := runTask(apptest.Context(t), []string{"--voice", "say hello"}, env, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errb.String(), out.String())
	}
	spoken := false
	for _, sp := range srv.Speeches() {
		spoken = spoken || sp.Input == "hello from the quote desk"
	}
	textOnly := strings.Contains(errb.String(), "running text-only")
	if spoken == textOnly {
		t.Fatalf("spoken %v, text-only %v: %s", spoken, textOnly, errb.String())
	}
	if !strings.Contains(out.String(), "says: hello from the quote desk") {
		t.Fatalf("the message is not in the event lines:\n%s", out.String())
	}
	t.Logf("spoken aloud: %v", spoken)
}

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

// TestRunAstraCLI: `vroom run --model gpt-6-astra --planner-model
// gpt-6-astra` — a model go-openai refuses tools to over Chat Completions —
// runs to the task's end as a process, every call through the Responses
// API with the efforts given by flag.
func TestRunAstraCLI(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	// One model name for both roles: the planner is the one offered spawn.
	srv.SetRoleOf(func(r *openai.ChatCompletionRequest) string {
		for _, tool := range r.Tools {
			if tool.Function != nil && tool.Function.Name == "spawn" {
				return "planner"
			}
		}
		return "executor"
	})
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "get a quote", "url": s.URL + "/quote.html"}))
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		n := r.ToolResults()
		if n == 0 {
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Get quote"))
		}
		if m := apptest.QuoteRE.FindStringSubmatch(r.LastText()); m != nil {
			return apptest.Done("quote "+m[1], true)
		}
		if n < 10 {
			return apptest.Call("read_page")
		}
		return apptest.Done("no quote", false)
	}})
	dir := t.TempDir()
	cmd := vroomCmd(dir, "sk-test-astra", nil, "run", "--json", "--base-url", srv.URL, "--model", openai.GPT6Astra, "--planner-model", openai.GPT6Astra,
		"--planner-effort", "high", "--effort", "low", "--max-agents", "1", "get me a quote")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("vroom run: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), `"state":"done"`) && !strings.Contains(out.String(), `"success":true`) {
		t.Fatalf("no successful end in\n%s", out.String())
	}
	efforts := map[string]string{"planner": "high", "executor": "low"}
	for _, r := range srv.Requests("") {
		if r.API != modeltest.APIResponses || r.Chat.Model != openai.GPT6Astra || r.Chat.ReasoningEffort != efforts[r.Role] {
			t.Errorf("%s request through %s, model %s, effort %q", r.Role, r.API, r.Chat.Model, r.Chat.ReasoningEffort)
		}
	}
	if len(srv.Requests("planner")) < 2 || len(srv.Requests("executor")) < 2 || len(srv.Unmatched()) > 0 {
		t.Fatalf("%d planner, %d executor, %d unmatched requests", len(srv.Requests("planner")), len(srv.Requests("executor")), len(srv.Unmatched()))
	}
}
