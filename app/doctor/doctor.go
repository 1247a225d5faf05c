package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"vroom/app/config"
	"vroom/browser"
)

// The checks of vroom doctor and of Settings' Check button: each one under
// its own deadline, each failure with the fix.

// CheckRow is one check's outcome.
type CheckRow struct {
	// Name is what was checked: "model server", "planner model", ...
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	// Required checks fail vroom doctor; the others (vision, speech,
	// transcription, sound) only narrow what a run can do.
	Required bool `json:"required"`
	// Detail is what was found: the model and the API it is spoken to
	// with, the key's source, the browser's path; or what went wrong.
	Detail string `json:"detail"`
	// Fix says what to do about a failed check.
	Fix string `json:"fix,omitempty"`
	// Millis is how long the check took.
	Millis int64 `json:"ms"`
}

// Env is what the checks look at; tests replace parts of it.
type Env struct {
	Settings config.Settings
	// SettingsPath is the settings file; SettingsErr why it did not load
	// (the defaults are checked instead).
	SettingsPath string
	SettingsErr  error
	// Key returns the API key and where it came from.
	Key     func(ctx context.Context) (string, config.KeySource, error)
	DataDir string
	// Deadline bounds each check (default doctorDeadline).
	Deadline time.Duration
	// Connect dials a remote browser; nil is the pool's own
	// (remote.Options.ConnectFunc).
	Connect func(ctx context.Context, raw string, opts browser.Options) (*browser.Browser, error)
}

// Deadline bounds one check: a model's first streamed reply, a
// Chromium launch.
const Deadline = 30 * time.Second

// keyFix is where the person sets the key.
const keyFix = "set OPENAI_API_KEY, or store the key in Settings (vroom's window)"

// doctor runs every check in order. Model checks after a server that did
// not answer (or refused the key) are skipped, saying why.
func Run(ctx context.Context, env Env) []CheckRow {
	if env.Deadline <= 0 {
		env.Deadline = Deadline
	}
	rows := []CheckRow{settingsRow(env)}
	key, keyRow := checkKey(ctx, env)
	rows = append(rows, keyRow)
	rows = append(rows, modelRows(ctx, env, key)...)
	rows = append(rows, browserRows(ctx, env)...)
	rows = append(rows,
		timed(ctx, env.Deadline, "sound server", false, checkSound),
		timed(ctx, env.Deadline, "data directory", true, func(ctx context.Context) (string, string, error) {
			return checkDataDir(env.DataDir)
		}),
	)
	return rows
}

// checkFunc is one check: what it found, and on failure the fix.
type checkFunc func(ctx context.Context) (detail, fix string, err error)

// timed runs f under its own deadline. A check that ignores its context
// is left behind when the deadline passes, so one hung check cannot hold
// the table.
func timed(ctx context.Context, deadline time.Duration, name string, required bool, f checkFunc) CheckRow {
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	type result struct {
		detail, fix string
		err         error
	}
	start := time.Now()
	ch := make(chan result, 1)
	go func() {
		d, fix, err := f(ctx)
		ch <- result{d, fix, err}
	}()
	row := CheckRow{Name: name, Required: required}
	var r result
	select {
	case r = <-ch:
	case <-ctx.Done():
		r = result{err: fmt.Errorf("no answer within %v", deadline), fix: "see why it hangs, or retry"}
	}
	row.Millis = time.Since(start).Milliseconds()
	row.OK, row.Detail, row.Fix = r.err == nil, r.detail, r.fix
	if r.err != nil {
		row.Detail = clipText(joinDetail(r.detail, r.err.Error()), 300)
	}
	return row
}

func joinDetail(detail, err string) string {
	if detail == "" {
		return err
	}
	return detail + ": " + err
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func settingsRow(env Env) CheckRow {
	row := CheckRow{Name: "settings", Required: true, OK: env.SettingsErr == nil, Detail: env.SettingsPath}
	if env.SettingsPath == "" {
		row.Detail = "the app's settings"
	}
	if env.SettingsErr != nil {
		row.Detail = clipText(env.SettingsErr.Error(), 300) + " (checking the defaults instead)"
		row.Fix = "correct the field named above in " + env.SettingsPath + ", or delete the file to start from the defaults"
	}
	return row
}

// checkKey finds the key; none is needed for a server on this machine.
// It runs in line (the keyring calls have their own deadlines), since the
// key it finds is what the model checks use.
func checkKey(ctx context.Context, env Env) (string, CheckRow) {
	ctx, cancel := context.WithTimeout(ctx, env.Deadline)
	defer cancel()
	start := time.Now()
	row := CheckRow{Name: "API key", Required: true}
	var k string
	var src config.KeySource
	err := config.ErrNoKey
	if env.Key != nil {
		k, src, err = env.Key(ctx)
	}
	row.Millis = time.Since(start).Milliseconds()
	switch {
	case errors.Is(err, config.ErrNoKey) && config.IsLocal(env.Settings.BaseURL):
		row.OK, row.Detail = true, "none, and none needed for a server on this computer"
	case errors.Is(err, config.ErrNoKey):
		row.Detail, row.Fix = "no key for "+env.Settings.BaseURL, keyFix
	case err != nil:
		row.Detail, row.Fix = clipText(err.Error(), 300), "unlock the system keyring, or "+keyFix
	default:
		where := map[config.KeySource]string{config.KeyFromEnv: "the environment (OPENAI_API_KEY)", config.KeyFromKeyring: "the system keyring",
			config.KeyFromSession: "this session (the keyring failed)"}[src]
		row.OK, row.Detail = true, fmt.Sprintf("%s, from %s", config.MaskKey(k), where)
	}
	return k, row
}

// RequiredFailed counts the required checks that failed.
func RequiredFailed(rows []CheckRow) int {
	n := 0
	for _, r := range rows {
		if r.Required && !r.OK {
			n++
		}
	}
	return n
}

// Print writes the table: a mark, the check, what was found, and a
// fix line under each failure.
func Print(w io.Writer, rows []CheckRow) error {
	var b strings.Builder
	width := 0
	for _, r := range rows {
		width = max(width, len(r.Name))
	}
	for _, r := range rows {
		mark, note := "✓", ""
		if !r.OK {
			mark = "✗"
			if !r.Required {
				note = " (not required)"
			}
		}
		fmt.Fprintf(&b, "%s %-*s  %s%s\n", mark, width, r.Name, r.Detail, note)
		if !r.OK && r.Fix != "" {
			fmt.Fprintf(&b, "  %-*s  fix: %s\n", width, "", r.Fix)
		}
	}
	switch n := RequiredFailed(rows); n {
	case 0:
		b.WriteString("every required check passed\n")
	case 1:
		b.WriteString("1 required check failed\n")
	default:
		fmt.Fprintf(&b, "%d required checks failed\n", n)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("print checks: %w", err)
	}
	return nil
}
