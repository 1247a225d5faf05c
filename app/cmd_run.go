package app

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"vroom/agents"
	"vroom/browser"
	"vroom/voice"
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

// closeGrace bounds closing a run's tabs and browser after it ends or is
// interrupted: Ctrl-C must leave nothing running within 2 s.
const closeGrace = 1500 * time.Millisecond

// runOptions is a parsed `vroom run` command line.
type runOptions struct {
	Task              string
	BaseURL           string
	Model             string
	PlannerModel      string
	MaxAgents         int
	MaxSteps          int
	ShowBrowser       bool
	Profile           string
	AllowIrreversible bool
	JSON              bool
	Voice             bool
	PTT               bool
}

// parseRunArgs parses flags over the settings' values. Flags may come
// before or after the task.
func parseRunArgs(args []string, st Settings, stderr io.Writer) (runOptions, error) {
	o := runOptions{}
	fs := flag.NewFlagSet("vroom run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, runUsage)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.BaseURL, "base-url", st.BaseURL, "OpenAI-compatible API base URL (OpenAI, Gemini, OpenRouter, Ollama, llama.cpp)")
	fs.StringVar(&o.Model, "model", st.ExecutorModel, "model of the executors, which drive the tabs")
	fs.StringVar(&o.PlannerModel, "planner-model", st.PlannerModel, "model of the planner, which splits the task and coordinates")
	fs.IntVar(&o.MaxAgents, "max-agents", st.Budgets.MaxAgents, "executors running at once")
	fs.IntVar(&o.MaxSteps, "max-steps", st.Budgets.MaxStepsPerAgent, "model turns per agent")
	fs.BoolVar(&o.ShowBrowser, "show-browser", false, "show the browser window (needs a display)")
	fs.StringVar(&o.Profile, "profile", "ephemeral", "browser profile: persistent (keeps logins, under the data directory) or ephemeral (throwaway)")
	fs.BoolVar(&o.AllowIrreversible, "allow-irreversible", false, "approve irreversible actions (pay, order, delete, send...) without asking; they are denied otherwise")
	fs.BoolVar(&o.JSON, "json", false, "print events as JSON lines")
	fs.BoolVar(&o.Voice, "voice", false, "speak agents' messages aloud (text-only when no sound server answers)")
	fs.BoolVar(&o.PTT, "ptt", false, "push-to-talk with --voice: Enter starts talking to the agents, Enter again ends")
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
	if err := validateBaseURL(o.BaseURL); err != nil {
		return o, fmt.Errorf("--base-url: %w", err)
	}
	return o, nil
}

// runEnv is what a run needs from outside: tests replace parts of it.
type runEnv struct {
	Settings Settings
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
	// Ready, when set, receives the run once it has started, for tests.
	Ready func(*agents.Run, *Tabs)
}

// runRun is `vroom run`.
func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
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
	path, err := DefaultSettingsPath()
	if err != nil {
		return runEnv{}, err
	}
	st, err := SettingsStore{Path: path}.Load()
	if err != nil {
		return runEnv{}, err
	}
	dir, err := DataDir()
	if err != nil {
		return runEnv{}, err
	}
	secrets := NewSecrets(SystemKeyring{}, keyringTimeout)
	return runEnv{
		Settings: st,
		DataDir:  dir,
		Key: func(ctx context.Context) (string, error) {
			k, _, err := secrets.APIKey(ctx)
			return k, err
		},
	}, nil
}

// DataDir is where Vroom keeps runs and the persistent browser profile:
// $VROOM_DATA_DIR, else $XDG_DATA_HOME/vroom, else the platform's usual
// place for application data.
func DataDir() (string, error) {
	if d := os.Getenv("VROOM_DATA_DIR"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "vroom"), nil
	}
	switch runtime.GOOS {
	case "windows", "darwin":
		d, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("data dir: %w", err)
		}
		return filepath.Join(d, "vroom"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("data dir: %w", err)
	}
	return filepath.Join(home, ".local", "share", "vroom"), nil
}

// runTask parses args and runs the task in env, returning the exit code.
func runTask(ctx context.Context, args []string, env runEnv, stdout, stderr io.Writer) int {
	o, err := parseRunArgs(args, env.Settings, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "vroom run: %v\nrun 'vroom run -h' for help\n", err)
		return 2
	}

	key, err := env.Key(ctx)
	if err != nil && !errors.Is(err, ErrNoKey) {
		fmt.Fprintln(stderr, "vroom run:", err)
		return 1
	}
	if key == "" && !isLocal(o.BaseURL) {
		fmt.Fprintf(stderr, "vroom run: no API key for %s: set OPENAI_API_KEY, store one in the app's settings, or point --base-url at a local server\n", o.BaseURL)
		return 1
	}

	runID := agents.NewRunID(time.Now())
	log, err := agents.CreateRunLog(filepath.Join(env.DataDir, "runs"), runID, nil)
	if err != nil {
		fmt.Fprintln(stderr, "vroom run:", err)
		return 1
	}
	log.Redact(key)
	defer log.Close()

	b := env.Browser
	if b == nil {
		bo := browser.Options{Headed: o.ShowBrowser}
		if o.Profile == "persistent" {
			bo.ProfileDir = filepath.Join(env.DataDir, "profile")
		}
		// The browser outlives ctx's cancellation by the grace period, so
		// the run's tabs can be closed in order.
		b, err = browser.Launch(context.WithoutCancel(ctx), bo)
		if err != nil {
			fmt.Fprintln(stderr, "vroom run:", err)
			return 1
		}
		defer b.Close()
	}

	st := env.Settings
	models := map[agents.Role]string{agents.RolePlanner: o.PlannerModel, agents.RoleExecutor: o.Model}
	if st.VisionModel != "" {
		models[agents.RoleVision] = st.VisionModel
	}
	policy := env.Policy
	policy.AllowIrreversible = o.AllowIrreversible
	budget := agents.Budget{Steps: o.MaxSteps, Tokens: st.Budgets.MaxRunTokens, Cost: st.Budgets.MaxRunCostUSD}
	if st.Budgets.MaxRunMinutes > 0 {
		budget.Wall = time.Duration(st.Budgets.MaxRunMinutes) * time.Minute
	}

	// The run has its own lifetime: ctx's end (Ctrl-C) reaches it through
	// Execute, which kills it in order and logs why.
	runCtx, cancelRun := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRun()
	tabs := NewTabs(runCtx, b, browser.ObserveOptions{})
	cfg := agents.Config{
		Model:     agents.NewModel(agents.ModelConfig{BaseURL: o.BaseURL, APIKey: key, Models: models}),
		Tabs:      tabs,
		Log:       log,
		Policy:    policy,
		Budget:    budget,
		MaxAgents: o.MaxAgents,
	}
	var v *voice.Voice
	if o.Voice {
		v, err = voice.New(runCtx, voice.Config{BaseURL: agents.NormalizeBaseURL(o.BaseURL), APIKey: key,
			TTSModel: st.TTSModel, Voices: st.Voices, STTModel: st.STTModel})
		if err != nil {
			fmt.Fprintf(stderr, "vroom run: no voice (%v); running text-only\n", err)
			v = nil
		} else {
			defer v.Close()
			cfg.Voice = speaker{v}
		}
	}
	run := agents.NewRun(runCtx, cfg)
	if env.Stdin != nil {
		go listen(runCtx, env.Stdin, run.Room(), v, o.PTT)
	}

	// Blank tabs open while the planner thinks, so its spawns do not wait.
	go tabs.Prewarm(runCtx, min(o.MaxAgents, 3))

	subCtx, cancelSub := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelSub()
	printed := make(chan struct{})
	sub := run.Room().Subscribe(subCtx)
	go func() {
		defer close(printed)
		printEvents(sub.C(), stdout, o.JSON)
	}()
	if !o.JSON {
		fmt.Fprintf(stderr, "vroom run %s: log in %s\n", runID, filepath.Join(env.DataDir, "runs", runID+".jsonl"))
	}
	if env.Ready != nil {
		env.Ready(run, tabs)
	}

	res, err := run.Execute(ctx, o.Task)

	// Every executor has stopped: close their tabs, within the grace,
	// before a browser launched for the run shuts down (deferred above),
	// which takes longer.
	closeCtx, cancelClose := context.WithTimeout(context.WithoutCancel(ctx), closeGrace)
	n := len(tabs.Opened())
	if cerr := tabs.CloseOpened(closeCtx); cerr != nil {
		fmt.Fprintln(stderr, "vroom run: closing tabs:", cerr)
		log.Write(agents.LogRecord{Event: "tabs_closed", Text: fmt.Sprintf("%d tabs", n), Error: cerr.Error()})
	} else {
		log.Write(agents.LogRecord{Event: "tabs_closed", Text: fmt.Sprintf("%d tabs", n)})
	}
	cancelClose()
	cancelRun()

	// The run's last event is its end; let the printer reach it.
	select {
	case <-printed:
	case <-time.After(time.Second):
	}
	cancelSub()

	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "vroom run: interrupted")
		} else {
			fmt.Fprintln(stderr, "vroom run:", err)
		}
		return 1
	}
	if !res.Success {
		return 1
	}
	return 0
}

// printEvents writes one line per event until the run's end event or the
// channel closes.
func printEvents(events <-chan agents.Event, w io.Writer, asJSON bool) {
	enc := json.NewEncoder(w)
	procs := map[int]string{} // pid → its last printed state and tab
	var usage agents.Usage
	for e := range events {
		switch d := e.Data.(type) {
		case agents.Usage:
			// The meter ticks at every model call: a terminal gets the
			// total at the end.
			usage = d
			if !asJSON {
				continue
			}
		case agents.ProcInfo:
			k := string(d.State) + " " + d.Tab
			if !asJSON && procs[d.PID] == k {
				continue // only its meters changed
			}
			procs[d.PID] = k
		case agents.RunInfo:
			if !asJSON && d.State != "started" {
				fmt.Fprintf(w, "%s %s\n", e.At.Format("15:04:05.000"), agents.FormatEvent(agents.Event{Kind: agents.EventUsage, Data: usage}))
			}
		}
		if asJSON {
			enc.Encode(e)
		} else {
			fmt.Fprintf(w, "%s %s\n", e.At.Format("15:04:05.000"), agents.FormatEvent(e))
		}
		if ri, ok := e.Data.(agents.RunInfo); ok && ri.State != "started" {
			return
		}
	}
}

// runReplay is `vroom replay RUN`: RUN is a run id, a run log's path, or
// "last".
func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, "usage: vroom replay RUN   (a run id, a run log's path, or last)")
		if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
			return 0
		}
		return 2
	}
	dir, err := DataDir()
	if err != nil {
		fmt.Fprintln(stderr, "vroom replay:", err)
		return 1
	}
	path, err := findRunLog(filepath.Join(dir, "runs"), args[0])
	if err != nil {
		fmt.Fprintln(stderr, "vroom replay:", err)
		return 1
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(stderr, "vroom replay:", err)
		return 1
	}
	defer f.Close()
	recs, err := agents.ReadRunLog(f)
	if err != nil {
		fmt.Fprintln(stderr, "vroom replay:", err)
		if len(recs) == 0 {
			return 1
		}
	}
	if err := agents.Replay(stdout, recs); err != nil {
		fmt.Fprintln(stderr, "vroom replay:", err)
		return 1
	}
	return 0
}

// findRunLog resolves a run id, "last" or a path to a run log file.
func findRunLog(dir, run string) (string, error) {
	if st, err := os.Stat(run); err == nil && !st.IsDir() {
		return run, nil
	}
	if run == "last" {
		m, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if len(m) == 0 {
			return "", fmt.Errorf("no runs in %s", dir)
		}
		sort.Strings(m) // run ids sort by start time
		return m[len(m)-1], nil
	}
	p := filepath.Join(dir, strings.TrimSuffix(run, ".jsonl")+".jsonl")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no run %q in %s", run, dir)
	}
	return p, nil
}

// listen turns the person's input into corrections: a typed line is said
// to every agent at once; with push-to-talk an empty line opens the
// microphone and the next one closes it, and what was said is transcribed
// and said to every agent.
func listen(ctx context.Context, in io.Reader, room *agents.Room, v *voice.Voice, ptt bool) {
	if v != nil && ptt {
		go func() {
			for {
				select {
				case tr, ok := <-v.Transcripts():
					if !ok {
						return
					}
					if tr.Err == nil {
						room.UserSays(tr.Text)
					}
					room.UserStops()
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	lines := make(chan string)
	go func() {
		// Reading a terminal cannot be cancelled: this goroutine ends
		// with the input or the process.
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- strings.TrimSpace(sc.Text()):
			case <-ctx.Done():
				return
			}
		}
	}()
	talking := false
	for {
		var line string
		select {
		case l, ok := <-lines:
			if !ok {
				return
			}
			line = l
		case <-ctx.Done():
			return
		}
		switch {
		case line != "":
			room.UserStarts()
			room.UserSays(line)
			room.UserStops()
		case v != nil && ptt && !talking:
			room.UserStarts()
			if err := v.Unmute(ctx); err != nil {
				room.Notice("the microphone did not open: %v", err)
				room.UserStops()
				continue
			}
			talking = true
		case talking:
			talking = false
			if c, err := v.Mute(ctx); err != nil || c == nil || !c.Speech {
				room.UserStops() // nothing to transcribe
			}
		}
	}
}
