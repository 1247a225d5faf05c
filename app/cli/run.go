package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/remote"
	"vroom/app/runner"
	"vroom/browser"
)

const runUsage = `usage: vroom run [flags] "task"

Runs a task headless: a planner splits it into sub-tasks and executors do
them, each in its own Chromium tab. One line per event is printed (JSON
lines with --json); the run log is kept under the data directory
($VROOM_DATA_DIR, else $XDG_DATA_HOME/vroom) in runs/RUN.jsonl, for
vroom replay. Settings come from the settings file; flags override them.
The API key is OPENAI_API_KEY, else the one stored in the system keyring.
Ctrl-C stops every agent and closes their tabs. A line typed while the
run goes on is a correction for every agent and the planner.

Exit status: 0 when the run succeeded, 1 when it failed, 2 on bad usage.

flags:
`

// runOptions is a parsed `vroom run` command line.
type runOptions struct {
	Task         string
	BaseURL      string
	Model        string
	PlannerModel string
	// API, PlannerEffort and ExecutorEffort are --api, --planner-effort
	// and --effort (config.Settings says what each means).
	API               string
	PlannerEffort     string
	ExecutorEffort    string
	MaxAgents         int
	MaxSteps          int
	ShowBrowser       bool
	Profile           string
	AllowIrreversible bool
	// AllowHosts are sites agents may go to without asking (--allow-host).
	AllowHosts []string
	// Files are the files agents may upload (--file), absolute.
	Files []string
	// AllowAnyHost lets agents leave the run's sites (--allow-any-host).
	AllowAnyHost bool
	JSON         bool
	Voice        bool
	PTT          bool
	// Browsers are remote browsers' CDP endpoints (--browser, or the
	// settings' list); empty: a Chromium on this computer.
	Browsers []string
}

// parseRunArgs parses flags over the settings' values. Flags may come
// before or after the task.
func parseRunArgs(args []string, st config.Settings, stderr io.Writer) (runOptions, error) {
	o := runOptions{}
	fs := commandFlags("vroom run", runUsage, stderr)
	fs.StringVar(&o.BaseURL, "base-url", st.BaseURL, "OpenAI-compatible API base URL (OpenAI, Gemini, OpenRouter, Ollama, llama.cpp)")
	fs.StringVar(&o.Model, "model", st.ExecutorModel, "model of the executors, which drive the tabs")
	fs.StringVar(&o.PlannerModel, "planner-model", st.PlannerModel, "model of the planner, which splits the task and coordinates")
	fs.StringVar(&o.API, "api", st.ModelAPI, "how models are spoken to: auto (the Responses API for OpenAI's GPT-6 models, Chat Completions for others), chat or responses")
	fs.StringVar(&o.PlannerEffort, "planner-effort", st.PlannerEffort, "the planner's reasoning effort: none, minimal, low, medium, high, xhigh or max (empty: the server's default)")
	fs.StringVar(&o.ExecutorEffort, "effort", st.ExecutorEffort, "the executors' reasoning effort, as --planner-effort")
	fs.IntVar(&o.MaxAgents, "max-agents", st.Budgets.MaxAgents, "executors running at once")
	fs.IntVar(&o.MaxSteps, "max-steps", st.Budgets.MaxStepsPerAgent, "model turns per agent")
	fs.BoolVar(&o.ShowBrowser, "show-browser", false, "show the browser window (needs a display)")
	fs.StringVar(&o.Profile, "profile", "ephemeral", "browser profile: persistent (keeps logins, under the data directory) or ephemeral (throwaway)")
	fs.BoolVar(&o.AllowIrreversible, "allow-irreversible", false, "approve irreversible actions (pay, order, delete, send...) without asking; they are denied otherwise")
	fs.Func("allow-host", "a host agents may go to besides the run's sites, e.g. example.com or localhost:8080 (repeatable); leaving the sites is denied otherwise", func(h string) error {
		if err := agents.ValidateHost(h); err != nil {
			return err
		}
		o.AllowHosts = append(o.AllowHosts, h)
		return nil
	})
	fs.Func("file", "a file agents may upload, e.g. ~/cv.pdf (repeatable); no other file can be sent", fileFlag(&o.Files))
	fs.BoolVar(&o.AllowAnyHost, "allow-any-host", false, "let agents leave the run's sites for any host not blocked (the person's data still never leaves them)")
	fs.BoolVar(&o.JSON, "json", false, "print events as JSON lines")
	fs.BoolVar(&o.Voice, "voice", false, "speak agents' messages aloud (text-only when no sound server answers)")
	fs.BoolVar(&o.PTT, "ptt", false, "push-to-talk with --voice: Enter starts talking to the agents, Enter again ends")
	o.Browsers = slices.Clone(st.Browser.Endpoints)
	fs.Func("browser", browserFlagUsage, o.browserFlag())
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return o, err
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	o.Task = strings.TrimSpace(strings.Join(rest, " "))
	switch {
	case o.Task == "":
		return o, errors.New("no task given")
	case o.Profile != "persistent" && o.Profile != "ephemeral":
		return o, fmt.Errorf("--profile must be persistent or ephemeral, not %q", o.Profile)
	case o.MaxAgents < 1 || o.MaxAgents > 16:
		return o, fmt.Errorf("--max-agents must be between 1 and 16, not %d", o.MaxAgents)
	case o.MaxSteps < 1:
		return o, fmt.Errorf("--max-steps must be at least 1, not %d", o.MaxSteps)
	case strings.TrimSpace(o.Model) == "" || strings.TrimSpace(o.PlannerModel) == "":
		return o, errors.New("--model and --planner-model must name models")
	}
	if err := config.ValidateBaseURL(o.BaseURL); err != nil {
		return o, fmt.Errorf("--base-url: %w", err)
	}
	if err := checkBrowsers(o.Browsers); err != nil {
		return o, err
	}
	return o, o.checkModelAPI()
}

// checkModelAPI checks --api and the efforts.
func (o runOptions) checkModelAPI() error {
	if _, err := agents.ParseAPI(o.API); err != nil {
		return fmt.Errorf("--api: %w", err)
	}
	for flag, v := range map[string]string{"--planner-effort": o.PlannerEffort, "--effort": o.ExecutorEffort} {
		if _, err := agents.ParseEffort(v); err != nil {
			return fmt.Errorf("%s: %w", flag, err)
		}
	}
	return nil
}

// runEnv is what a run needs from outside: tests replace parts of it.
type runEnv struct {
	Settings config.Settings
	// Key returns the API key ("" with ErrNoKey when none is set).
	Key func(ctx context.Context) (string, error)
	// DataDir holds runs/ and the persistent profile.
	DataDir string
	// Browser, when set, is used instead of launching one; it is left
	// open, but the tabs the run opened are closed.
	Browser *browser.Browser
	// Policy is the run's navigation policy (AllowIrreversible is set
	// from the flag).
	Policy agents.Policy
	// Stdin carries the person's typed corrections (nil: none).
	Stdin io.Reader
	// Ready, when set, receives the run once it has started and the remote
	// browsers it opens its tabs in (nil: local), for tests.
	Ready func(*runner.BuiltRun, *remote.Pool)
	// EditModel, when set, adjusts the model client (tests: short bounds
	// on a silent server).
	EditModel func(*agents.ModelConfig)
}

// Run is `vroom run`.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A second Ctrl-C kills at once, as people expect.
	context.AfterFunc(ctx, stop)

	env, err := defaultRunEnv()
	if err != nil {
		fmt.Fprintln(stderr, "vroom run:", err)
		return 1
	}
	env.Stdin = os.Stdin
	return runTask(ctx, args, env, stdout, stderr)
}

// defaultRunEnv reads the settings file and finds the keyring and data
// directory.
func defaultRunEnv() (runEnv, error) {
	path, err := config.DefaultPath()
	if err != nil {
		return runEnv{}, err
	}
	st, err := config.Store{Path: path}.Load()
	if err != nil {
		return runEnv{}, err
	}
	dir, err := config.DataDir()
	if err != nil {
		return runEnv{}, err
	}
	secrets := config.NewSecrets(config.SystemKeyring{}, config.KeyringTimeout, nil)
	return runEnv{
		Settings: st,
		DataDir:  dir,
		Key: func(ctx context.Context) (string, error) {
			k, _, err := secrets.APIKey(ctx)
			return k, err
		},
	}, nil
}

// runTask parses args and runs the task in env, returning the exit code.
func runTask(ctx context.Context, args []string, env runEnv, stdout, stderr io.Writer) int {
	o, err := parseRunArgs(args, env.Settings, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return badUsage(stderr, "vroom run", err)
	}
	b, pool, done, err := o.runBrowsers(ctx, env, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "vroom run:", err)
		return 1
	}
	defer done()
	// The run has its own lifetime: ctx's end (Ctrl-C) reaches it through
	// Execute, which kills it in order and logs why.
	spec := o.spec(env, b, newEventPrinter(stdout, o.JSON), stderr)
	spec.Endpoints = pool
	run, err := runner.BuildRun(context.WithoutCancel(ctx), spec)
	if err != nil {
		fmt.Fprintln(stderr, "vroom run:", setupErr(err, b))
		return 1
	}
	// A start that failed before the run watched the browser; one that
	// fails later ends the run through its BrowserClosed event.
	if err := startErr(b); err != nil {
		fmt.Fprintln(stderr, "vroom run:", setupErr(err, b))
		if cerr := run.Close(); cerr != nil {
			fmt.Fprintln(stderr, "vroom run:", cerr)
		}
		return 1
	}
	listenCtx, stopListening := context.WithCancel(ctx)
	defer stopListening()
	if env.Stdin != nil {
		go listen(listenCtx, env.Stdin, run.Run.Room(), run.Voice, o.PTT)
	}
	if !o.JSON {
		fmt.Fprintf(stderr, "vroom run %s: log in %s\n", run.ID, run.LogPath)
	}
	if env.Ready != nil {
		env.Ready(run, pool)
	}
	res, err := run.Execute(ctx)
	stopListening() // the run is over: a line typed now has no one to reach
	// Every executor has stopped: Close closes their tabs, within the
	// grace, before a browser launched for the run shuts down (deferred
	// above), which takes longer.
	cerr := run.Close()
	for _, e := range unjoin(cerr) {
		if !(errors.Is(e, agents.ErrRunLogWrite) && errors.Is(err, agents.ErrRunLogWrite)) {
			fmt.Fprintln(stderr, "vroom run:", e) // the run's own error says it
		}
	}
	if err == nil && errors.Is(cerr, runner.ErrRunLogIncomplete) {
		err = cerr // a run whose record is cut is no success
	}
	return exitCode(ctx, res, runErr(err, b), stderr)
}

// setupErr is an error that stopped vroom run before its run started, in
// the person's words: where to set a key, what to do about a profile
// another Vroom holds, where the run log is and what to do.
func setupErr(err error, b *browser.Browser) error {
	switch {
	case errors.Is(err, runner.ErrNoAPIKey):
		return fmt.Errorf("%w: set OPENAI_API_KEY, or the key in the app's Settings, or point --base-url at a local server", err)
	case errors.Is(err, agents.ErrRunLogWrite):
		return fmt.Errorf("%w; %s", err, runner.RunLogHint(err))
	}
	return runErr(err, b)
}

// runErr is a run's failure in the person's words. A browser that ended
// because the persistent profile is held says who holds it and what to
// do, rather than that the browser closed.
func runErr(err error, b *browser.Browser) error {
	if err == nil {
		return nil
	}
	var busy *browser.ProfileInUseError
	if b != nil && errors.As(b.StartErr(), &busy) {
		return fmt.Errorf("%w; use --profile ephemeral or close it", busy)
	}
	if errors.Is(err, agents.ErrRunLogWrite) {
		return fmt.Errorf("%w; %s", err, runner.RunLogHint(err))
	}
	return err
}

// browserOptions is the browser a run launches for itself.
func (o runOptions) browserOptions(dataDir string) browser.Options {
	bo := browser.Options{Headed: o.ShowBrowser}
	if o.Profile == "persistent" {
		bo.ProfileDir = filepath.Join(dataDir, "profile")
	}
	return bo
}

// spec is the run the command line asks for: the settings with the flags
// over them, headless (no confirmer: irreversible actions are denied
// unless --allow-irreversible), its tabs closed at the end.
func (o runOptions) spec(env runEnv, b *browser.Browser, p *eventPrinter, stderr io.Writer) runner.RunSpec {
	st := env.Settings
	st.BaseURL, st.PlannerModel, st.ExecutorModel = o.BaseURL, o.PlannerModel, o.Model
	st.ModelAPI, st.PlannerEffort, st.ExecutorEffort = o.API, o.PlannerEffort, o.ExecutorEffort
	st.Budgets.MaxAgents, st.Budgets.MaxStepsPerAgent = o.MaxAgents, o.MaxSteps
	policy := env.Policy
	policy.AllowIrreversible = o.AllowIrreversible
	policy.Sites = append(slices.Clone(policy.Sites), o.AllowHosts...)
	policy.AllowAnyHost = policy.AllowAnyHost || o.AllowAnyHost
	return runner.RunSpec{
		Task: o.Task, Browser: b, Settings: st, Key: env.Key, DataDir: env.DataDir, Policy: policy, Voice: o.Voice,
		Files:     o.Files,
		EditModel: env.EditModel,
		Events:    p.print,
		Warn:      func(err error) { fmt.Fprintln(stderr, "vroom run:", err) },
		Prewarm:   min(o.MaxAgents, 3),
		CloseTabs: true,
		// Headless, nothing relaunches a browser that died: the run ends.
		EndOnBrowserLoss: true,
		KeyHint:          "set OPENAI_API_KEY, or the key in the app's Settings",
		FinishSpeech:     speechGrace,
		Hints: agents.Hints{
			LeaveSites:   func(host string) string { return "--allow-host " + host + " or --allow-any-host" },
			Irreversible: "--allow-irreversible",
		},
	}
}

// speechGrace bounds how long vroom run --voice lets the last message
// finish playing after the run ended; a second Ctrl-C quits at once.
const speechGrace = 5 * time.Second

// exitCode is vroom run's status for the run's outcome, saying on stderr
// why a run that erred stopped.
func exitCode(ctx context.Context, res agents.Result, err error, stderr io.Writer) int {
	switch {
	case err != nil && ctx.Err() != nil:
		fmt.Fprintln(stderr, "vroom run: interrupted")
	case err != nil:
		fmt.Fprintln(stderr, "vroom run:", err)
	case res.Success:
		return 0
	}
	return 1
}

// unjoin lists the errors errors.Join put together, one per line to print.
func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// closeBrowser closes a browser the command launched, saying on stderr
// when it did not close cleanly.
func closeBrowser(b *browser.Browser, stderr io.Writer) {
	if err := b.Close(); err != nil {
		fmt.Fprintln(stderr, "vroom run: closing the browser:", err)
	}
}

// fileFlag is --file: a regular file that exists, kept as an absolute
// path among the files an upload may send.
func fileFlag(files *[]string) func(string) error {
	return func(f string) error {
		abs, err := filepath.Abs(f)
		if err != nil {
			return err
		}
		st, err := os.Stat(abs)
		if err != nil {
			return fmt.Errorf("--file %s: %w", f, err)
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("--file %s: not a regular file", f)
		}
		*files = append(*files, abs)
		return nil
	}
}
