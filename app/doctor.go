package app

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"vroom/agents"
	"vroom/app/config"
	"vroom/app/remote"
	"vroom/browser"
	"vroom/voice"
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

// doctorEnv is what the checks look at; tests replace parts of it.
type doctorEnv struct {
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

// doctorDeadline bounds one check: a model's first streamed reply, a
// Chromium launch.
const doctorDeadline = 30 * time.Second

// keyFix is where the person sets the key.
const keyFix = "set OPENAI_API_KEY, or store the key in Settings (vroom's window)"

// doctor runs every check in order. Model checks after a server that did
// not answer (or refused the key) are skipped, saying why.
func doctor(ctx context.Context, env doctorEnv) []CheckRow {
	if env.Deadline <= 0 {
		env.Deadline = doctorDeadline
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

func settingsRow(env doctorEnv) CheckRow {
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
func checkKey(ctx context.Context, env doctorEnv) (string, CheckRow) {
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

// apiName says an API in words.
func apiName(a agents.API) string {
	if a == agents.APIResponses {
		return "the Responses API"
	}
	return "Chat Completions"
}

// modelRows checks the model server: its models list, a tool call for the
// planner and the executor, an image for the vision model, speech and
// transcription when set.
func modelRows(ctx context.Context, env doctorEnv, key string) []CheckRow {
	st := env.Settings
	cfg := st.Model(key, keyFix)
	cfg.MaxRetries, cfg.CallTimeout = -1, env.Deadline // a check reports, it does not insist
	m := agents.NewModel(cfg)
	url := agents.NormalizeBaseURL(st.BaseURL)
	list := timed(ctx, env.Deadline, "model server", true, func(ctx context.Context) (string, string, error) {
		ids, err := m.ListModels(ctx)
		if err != nil {
			return url, serverFix(err, url), err
		}
		return fmt.Sprintf("%s lists %d models", url, len(ids)), "", nil
	})
	rows := []CheckRow{list}
	probes := []struct {
		name     string
		role     agents.Role
		required bool
	}{{"planner model", agents.RolePlanner, true}, {"executor model", agents.RoleExecutor, true}, {"vision model", agents.RoleVision, false}}
	for _, p := range probes {
		if !list.OK {
			rows = append(rows, CheckRow{Name: p.name, Required: p.required,
				Detail: fmt.Sprintf("%s through %s: not tried, the model server check failed", m.ModelFor(p.role), apiName(m.APIFor(p.role))),
				Fix:    list.Fix})
			continue
		}
		rows = append(rows, timed(ctx, env.Deadline, p.name, p.required, func(ctx context.Context) (string, string, error) {
			return probeRole(ctx, m, p.role, url)
		}))
	}
	if list.OK && st.TTSModel != "" {
		rows = append(rows, timed(ctx, env.Deadline, "speech", false, func(ctx context.Context) (string, string, error) {
			return checkSpeech(ctx, st, key)
		}))
	}
	if list.OK && st.STTModel != "" {
		rows = append(rows, timed(ctx, env.Deadline, "transcription", false, func(ctx context.Context) (string, string, error) {
			return checkTranscription(ctx, st, key)
		}))
	}
	return rows
}

// probeRole makes one streamed tool call with role's model.
func probeRole(ctx context.Context, m *agents.Model, role agents.Role, url string) (string, string, error) {
	res, err := m.Probe(ctx, role, role == agents.RoleVision)
	what := fmt.Sprintf("%s through %s", res.Model, apiName(res.API))
	if role == agents.RoleVision {
		what += ", with an image"
	}
	if err == nil {
		return what + ": called the tool", "", nil
	}
	var apiErr *openai.APIError
	switch {
	case errors.Is(err, agents.ErrNoToolCall):
		return what, fmt.Sprintf("choose a model for the %s that calls tools (function calling); with Ollama or llama.cpp, one whose chat template supports tools", role), err
	case errors.Is(err, openai.ErrReasoningToolsRequireResponses):
		return what, "set the model API to auto or responses (Settings, or --api)", err
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode == 400:
		fix := fmt.Sprintf("the server refused the request: choose a %s model it serves with tool calling", role)
		if role == agents.RoleVision {
			fix = "choose a vision model that takes images (Settings → Vision model)"
		}
		if res.API == agents.APIChat {
			fix += ", or try --api responses if it speaks OpenAI's Responses API"
		} else {
			fix += ", or try --api chat if it does not speak OpenAI's Responses API"
		}
		return what, fix, err
	}
	return what, serverFix(err, url), err
}

// serverFix is the fix for a model call that failed as err did.
func serverFix(err error, url string) string {
	var apiErr *openai.APIError
	var netErr net.Error
	switch {
	case errors.Is(err, agents.ErrKeyRefused), errors.As(err, &apiErr) && (apiErr.HTTPStatusCode == 401 || apiErr.HTTPStatusCode == 403):
		return "the server refused the key: " + keyFix
	case errors.Is(err, agents.ErrModelUnreachable), errors.As(err, &netErr), errors.Is(err, io.ErrUnexpectedEOF):
		return "nothing answers at " + url + ": start the server, or correct base_url (Settings, or --base-url)"
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode == 404:
		return "the server has no such endpoint or model: check base_url and the model names"
	}
	return "see the error: the server's own message says more"
}

// audioClient is a go-openai client for the speech endpoints.
func audioClient(st config.Settings, key string) *openai.Client {
	oc := openai.DefaultConfig(key)
	oc.BaseURL = agents.NormalizeBaseURL(st.BaseURL)
	return openai.NewClientWithConfig(oc)
}

func checkSpeech(ctx context.Context, st config.Settings, key string) (string, string, error) {
	v := "alloy"
	if len(st.Voices) > 0 {
		v = st.Voices[0]
	}
	fix := "set a speech model the server has, or leave it empty for offline speech (espeak-ng)"
	resp, err := audioClient(st, key).CreateSpeech(ctx, openai.CreateSpeechRequest{
		Model: openai.SpeechModel(st.TTSModel), Input: "ready", Voice: openai.SpeechVoice(v), ResponseFormat: openai.SpeechResponseFormatPcm})
	if err != nil {
		return st.TTSModel, fix, err
	}
	defer resp.Close()
	n, err := io.Copy(io.Discard, resp)
	if err == nil && n == 0 {
		err = errors.New("no audio came back")
	}
	if err != nil {
		return st.TTSModel, fix, err
	}
	return fmt.Sprintf("%s said a word (%d bytes of audio)", st.TTSModel, n), "", nil
}

func checkTranscription(ctx context.Context, st config.Settings, key string) (string, string, error) {
	_, err := audioClient(st, key).CreateTranscription(ctx, openai.AudioRequest{
		Model: st.STTModel, FilePath: "check.wav", Reader: bytes.NewReader(toneWAV()), Format: openai.AudioResponseFormatJSON})
	if err != nil {
		return st.STTModel, "set a transcription model the server has (e.g. whisper-1)", err
	}
	return st.STTModel + " transcribed a clip", "", nil
}

// toneWAV is half a second of a quiet 440 Hz tone, 16 kHz mono.
func toneWAV() []byte {
	const rate, n = 16000, 8000
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString("RIFF")
	binary.Write(&b, le, uint32(36+2*n))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(rate), uint32(2 * rate), uint16(2), uint16(16)} {
		binary.Write(&b, le, v) // PCM, mono, the rate, bytes a second, block, bits
	}
	b.WriteString("data")
	binary.Write(&b, le, uint32(2*n))
	for i := 0; i < n; i++ {
		binary.Write(&b, le, int16(3000*math.Sin(2*math.Pi*440*float64(i)/rate)))
	}
	return b.Bytes()
}

// browserRows checks where agents' tabs open: each remote browser the
// settings name, or else the Chromium on this computer. With endpoints,
// the local Chromium is not checked: no run of these settings starts one.
func browserRows(ctx context.Context, env doctorEnv) []CheckRow {
	eps := env.Settings.Browser.Endpoints
	if len(eps) == 0 {
		return []CheckRow{timed(ctx, env.Deadline, "Chromium", true, checkChromium)}
	}
	connect := remote.Options{Connect: env.Connect}.ConnectFunc()
	rows := make([]CheckRow, 0, len(eps))
	for i, raw := range eps {
		name := fmt.Sprintf("remote browser %d", i+1)
		rows = append(rows, timed(ctx, env.Deadline, name, true, func(ctx context.Context) (string, string, error) {
			return checkEndpoint(ctx, connect, raw)
		}))
	}
	return rows
}

// checkEndpoint connects to one remote browser as a run would and asks
// its version. Only browser.EndpointName's form of the address is shown:
// a token stays hidden, and the connection's own errors come redacted.
func checkEndpoint(ctx context.Context, connect func(context.Context, string, browser.Options) (*browser.Browser, error), raw string) (string, string, error) {
	name := browser.EndpointName(raw)
	fix := "start the remote browser, or correct its address (Settings → Browser, browser.endpoints in the settings file)"
	if err := browser.CheckEndpoint(raw); err != nil {
		return name, fix, err
	}
	b, err := connect(ctx, raw, browser.Options{})
	if err != nil {
		if errors.Is(err, browser.ErrEndpointVersion) {
			fix = "the address answers, but not as a DevTools server: give the browser's DevTools port (--remote-debugging-port) or its ws:// URL"
		}
		return name, fix, err
	}
	v, verr := b.Version(ctx)
	cerr := b.Close()
	if verr != nil {
		return name + " connected", fix, verr
	}
	if cerr != nil {
		return name + " answers " + v, "", fmt.Errorf("disconnecting: %w", cerr)
	}
	return name + " answers: " + v, "", nil
}

// checkChromium finds Chromium and launches it headless once.
func checkChromium(ctx context.Context) (string, string, error) {
	fix := "install Chromium (apt install chromium) or Chrome, or set VROOM_CHROME to its path"
	path, err := browser.FindChrome()
	if err != nil {
		return "", fix, err
	}
	b, err := browser.Launch(ctx, browser.Options{})
	if err != nil {
		return path, fix + "; if it is installed, run it by hand to see why it does not start", err
	}
	if err := b.Close(); err != nil {
		return path + " started", "", fmt.Errorf("closing it: %w", err)
	}
	return path + " started headless", "", nil
}

// checkSound opens the audio system and a playback device, as a run with
// voice does.
func checkSound(ctx context.Context) (string, string, error) {
	v, err := voice.New(ctx, voice.Config{Offline: true})
	if err != nil {
		return "", "start PulseAudio or PipeWire (or check PULSE_SERVER); without one, runs are text-only", err
	}
	if err := v.Close(); err != nil {
		return "playback opened", "", fmt.Errorf("closing it: %w", err)
	}
	return "playback opens", "", nil
}

// checkDataDir writes and removes a file where runs are logged.
func checkDataDir(dir string) (string, string, error) {
	fix := "make " + dir + " writable, or set VROOM_DATA_DIR to a writable directory"
	if dir == "" {
		return "", "set VROOM_DATA_DIR to a writable directory", errors.New("no data directory")
	}
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o700); err != nil {
		return dir, fix, err
	}
	f, err := os.CreateTemp(filepath.Join(dir, "runs"), ".doctor-*")
	if err != nil {
		return dir, fix, err
	}
	_, werr := f.WriteString("check\n")
	cerr := f.Close()
	rerr := os.Remove(f.Name())
	if err := errors.Join(werr, cerr, rerr); err != nil {
		return dir, fix, err
	}
	return dir + " is writable", "", nil
}
