package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/doctor"
)

const doctorUsage = `usage: vroom doctor [flags]

Checks what a run needs, each within its own deadline: the settings file;
the API key and where it comes from; the model server (its models list,
one streamed tool call for the planner and for the executor model through
the API each is spoken to with, an image for the vision model, speech and
transcription when set); Chromium, or each remote browser when the
settings name some (connected to, and asked its version; tokens are never
printed); the sound server; the data directory. Prints a ✓ or ✗ per
check, with the fix for each ✗. Flags override the settings, as for
vroom run.

Exit status: 0 when every required check passed (the vision model,
speech, transcription and sound are not required), 1 when one failed, 2 on
bad usage.

flags:
`

// doctorOptions is a parsed vroom doctor command line.
type doctorOptions struct {
	JSON    bool
	Timeout time.Duration
}

// parseDoctorArgs parses flags over env's settings.
func parseDoctorArgs(args []string, st *config.Settings, stderr io.Writer) (doctorOptions, error) {
	var o doctorOptions
	fs := commandFlags("vroom doctor", doctorUsage, stderr)
	modelFlags(fs, *st, &st.BaseURL, &st.ExecutorModel, &st.PlannerModel)
	fs.StringVar(&st.VisionModel, "vision-model", st.VisionModel, "model that reads screenshots (empty: the executor's)")
	fs.StringVar(&st.ModelAPI, "api", st.ModelAPI, "how models are spoken to: auto, chat or responses")
	fs.BoolVar(&o.JSON, "json", false, "print the checks as a JSON array")
	fs.DurationVar(&o.Timeout, "timeout", doctor.Deadline, "deadline of each check")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := config.ValidateBaseURL(st.BaseURL); err != nil {
		return o, fmt.Errorf("--base-url: %w", err)
	}
	if _, err := agents.ParseAPI(st.ModelAPI); err != nil {
		return o, fmt.Errorf("--api: %w", err)
	}
	if o.Timeout <= 0 {
		return o, errors.New("--timeout must be positive")
	}
	return o, nil
}

// Doctor is `vroom doctor`.
func Doctor(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runDoctor(ctx, args, defaultDoctorEnv(), stdout, stderr)
}

// defaultDoctorEnv is the settings file, the environment's or keyring's
// key and the data directory, as vroom run finds them. What cannot be
// found is left for a check to report.
func defaultDoctorEnv() doctor.Env {
	env := doctor.Env{Settings: config.DefaultSettings()}
	env.SettingsPath, env.SettingsErr = config.DefaultPath()
	if env.SettingsErr == nil {
		st, err := config.Store{Path: env.SettingsPath}.Load()
		if err != nil {
			env.SettingsErr = err
		} else {
			env.Settings = st
		}
	}
	env.DataDir, _ = config.DataDir() // "" is reported by the data directory check
	secrets := config.NewSecrets(config.SystemKeyring{}, config.KeyringTimeout, nil)
	env.Key = secrets.APIKey
	return env
}

// runDoctor parses args, runs the checks in env and prints them; it
// returns the exit code.
func runDoctor(ctx context.Context, args []string, env doctor.Env, stdout, stderr io.Writer) int {
	o, err := parseDoctorArgs(args, &env.Settings, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return badUsage(stderr, "vroom doctor", err)
	}
	env.Deadline = o.Timeout
	rows := doctor.Run(ctx, env)
	if o.JSON {
		if err := json.NewEncoder(stdout).Encode(rows); err != nil {
			fmt.Fprintln(stderr, "vroom doctor:", err)
			return 1
		}
	} else if err := doctor.Print(stdout, rows); err != nil {
		fmt.Fprintln(stderr, "vroom doctor:", err)
		return 1
	}
	if failed := doctor.RequiredFailed(rows); failed > 0 {
		return 1
	}
	return 0
}
