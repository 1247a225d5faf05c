package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"

	openai "github.com/sashabaranov/go-openai"

	"vroom/agents"
	"vroom/app/config"
	"vroom/voice"
)

// The model server's checks: its models list, a streamed tool call per
// role, an image for the vision model, speech and transcription.

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
func modelRows(ctx context.Context, env Env, key string) []CheckRow {
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
	samples := make([]int16, n)
	for i := range samples {
		samples[i] = int16(3000 * math.Sin(2*math.Pi*440*float64(i)/rate))
	}
	return voice.WAV(samples, rate)
}
