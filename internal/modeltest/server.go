package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// The APIs a Request may come through.
const (
	// APIChat is POST /v1/chat/completions.
	APIChat = "chat"
	// APIResponses is POST /v1/responses.
	APIResponses = "responses"
)

// Request is one recorded model request, through either API.
type Request struct {
	// Role is the role the server recognised (see Server.RoleOf).
	Role string
	// API is the endpoint it came through: APIChat or APIResponses.
	API string
	// Chat is the decoded request body. A Responses API request is
	// converted (see responsesChat), so scripts, matchers and helpers read
	// both APIs alike.
	Chat openai.ChatCompletionRequest
	// Body is the raw request body.
	Body []byte
	// Header is the request's header (the Authorization header included, so
	// tests can check the key was sent).
	Header http.Header
	// At is when the server received the request.
	At time.Time
	// Matched reports whether a script step answered it.
	Matched bool
}

// LastMessage returns the request's last message.
func (r *Request) LastMessage() (openai.ChatCompletionMessage, bool) {
	if len(r.Chat.Messages) == 0 {
		return openai.ChatCompletionMessage{}, false
	}
	return r.Chat.Messages[len(r.Chat.Messages)-1], true
}

// LastText returns the text of the request's last message: usually the
// tool result the agent is answering.
func (r *Request) LastText() string {
	m, _ := r.LastMessage()
	return MessageText(m)
}

// ToolResults counts the tool results the request carries: the agent is at
// its (n+1)th model call.
func (r *Request) ToolResults() int {
	n := 0
	for _, m := range r.Chat.Messages {
		if m.Role == openai.ChatMessageRoleTool {
			n++
		}
	}
	return n
}

// Text returns the text of every message joined by newlines, for
// assertions that something reached the model at all.
func (r *Request) Text() string {
	var b strings.Builder
	for _, m := range r.Chat.Messages {
		b.WriteString(MessageText(m))
		b.WriteByte('\n')
	}
	return b.String()
}

// SpeechRequest is one recorded /audio/speech request.
type SpeechRequest struct {
	Model          string  `json:"model"`
	Input          string  `json:"input"`
	Voice          string  `json:"voice"`
	ResponseFormat string  `json:"response_format"`
	Speed          float64 `json:"speed"`
}

// Upload is one recorded /audio/transcriptions request.
type Upload struct {
	Filename string
	// ContentType is the file part's content type.
	ContentType string
	Data        []byte
	// Fields holds the form's other fields (model, language, ...).
	Fields map[string]string
}

// Server is a scripted OpenAI-compatible HTTP server. Its zero value is not
// usable: create one with New.
type Server struct {
	// URL is the base URL to give a client, ending in /v1.
	URL string

	srv *httptest.Server

	mu        sync.Mutex
	roleOf    func(*openai.ChatCompletionRequest) string
	steps     map[string][]*Step
	requests  []*Request
	speeches  []SpeechRequest
	uploads   []Upload
	speech    func(SpeechRequest) []byte
	speechFmt SpeechFormat
	hold      speechHold
	texts     []string
	models    []string
	key       string
	notify    chan struct{}
}

// SpeechFormat is how the speech endpoint encodes audio by default, when
// the request does not ask for pcm or wav.
type SpeechFormat int

const (
	// PCM is raw signed 16-bit little-endian mono at 24 kHz, OpenAI's pcm.
	PCM SpeechFormat = iota
	// WAV is the same samples in a WAV container.
	WAV
)

// SpeechRate is the sample rate of generated speech, as OpenAI's pcm.
const SpeechRate = 24000

var roleMarker = regexp.MustCompile(`\[role:([A-Za-z0-9_.-]+)\]`)

// New starts a server and closes it when tb's test ends.
func New(tb testing.TB) *Server {
	s := &Server{
		steps:  map[string][]*Step{},
		notify: make(chan struct{}),
	}
	s.roleOf = defaultRoleOf
	s.speech = ToneSpeech
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	tb.Cleanup(s.Close)
	return s
}

// defaultRoleOf takes a [role:NAME] marker from the system prompt, or the
// model name.
func defaultRoleOf(r *openai.ChatCompletionRequest) string {
	for _, m := range r.Messages {
		if m.Role != openai.ChatMessageRoleSystem {
			continue
		}
		if sm := roleMarker.FindStringSubmatch(MessageText(m)); sm != nil {
			return sm[1]
		}
	}
	return r.Model
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// SetRoleOf replaces how a request's role is recognised. By default it is a
// "[role:NAME]" marker in a system message, or else the model name.
func (s *Server) SetRoleOf(f func(*openai.ChatCompletionRequest) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.roleOf = f
}

// Script appends steps to role's script.
func (s *Server) Script(role string, steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range steps {
		st := steps[i]
		s.steps[role] = append(s.steps[role], &st)
	}
}

// Then appends replies to role's script as a plain sequence.
func (s *Server) Then(role string, replies ...Reply) {
	steps := make([]Step, len(replies))
	for i, r := range replies {
		steps[i] = Step{Reply: r}
	}
	s.Script(role, steps...)
}

// SetModels sets the ids GET /v1/models lists; by default it lists the
// scripted roles.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = ids
}

// RequireKey makes every endpoint answer 401, as OpenAI does, unless the
// request carries key as its bearer token.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// SetSpeech replaces the audio the speech endpoint returns (ToneSpeech by
// default): f gives the
// samples' bytes as raw PCM s16le at SpeechRate; the server wraps them in
// WAV when asked.
func (s *Server) SetSpeech(f func(SpeechRequest) []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.speech = f
}

// SetSpeechFormat sets the encoding used when a speech request names a
// format other than pcm or wav (such as the API's default mp3, which this
// server cannot make).
func (s *Server) SetSpeechFormat(f SpeechFormat) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.speechFmt = f
}

// speechHold holds a speech reply back part way (see HoldSpeech).
type speechHold struct {
	after   time.Duration
	release <-chan struct{}
}

// HoldSpeech makes the speech endpoint send the first after of each
// reply's audio and hold the rest back until release is closed (or the
// request ends), as a provider still synthesizing does: a test can check
// that playback starts before the body ends.
func (s *Server) HoldSpeech(after time.Duration, release <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold = speechHold{after: after, release: release}
}

// Transcribe queues texts the transcription endpoint returns, one per
// upload; when the queue is empty it returns "".
func (s *Server) Transcribe(texts ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.texts = append(s.texts, texts...)
}

// Requests returns the model requests (both APIs) received so far, for role, or all
// when role is "".
func (s *Server) Requests(role string) []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Request
	for _, r := range s.requests {
		if role == "" || r.Role == role {
			out = append(out, r)
		}
	}
	return out
}

// Unmatched returns the chat requests no step answered; a test usually
// wants none.
func (s *Server) Unmatched() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Request
	for _, r := range s.requests {
		if !r.Matched {
			out = append(out, r)
		}
	}
	return out
}

// Speeches returns the speech requests received so far.
func (s *Server) Speeches() []SpeechRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SpeechRequest(nil), s.speeches...)
}

// Uploads returns the transcription uploads received so far.
func (s *Server) Uploads() []Upload {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Upload(nil), s.uploads...)
}

// Changed returns a channel closed at the next request of any kind, so a
// test can wait for traffic without sleeping.
func (s *Server) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notify
}

func (s *Server) changed() {
	close(s.notify)
	s.notify = make(chan struct{})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	key := s.key
	s.mu.Unlock()
	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		writeError(w, http.StatusUnauthorized, "modeltest: incorrect API key provided", 0)
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.chat(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
		s.responses(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		s.listModels(w)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/audio/speech":
		s.speak(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/audio/transcriptions":
		s.transcribe(w, r)
	default:
		writeError(w, http.StatusNotFound, "modeltest: no route for "+r.Method+" "+r.URL.Path, 0)
	}
}

func writeError(w http.ResponseWriter, status int, msg string, retryAfter time.Duration) {
	if retryAfter > 0 {
		// Retry-After is in whole seconds on the wire; round up so a
		// client never retries early.
		secs := int((retryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	typ := "server_error"
	if status == http.StatusTooManyRequests {
		typ = "rate_limit_exceeded"
	}
	json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "code": status},
	})
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "modeltest: read body: "+err.Error(), 0)
		return
	}
	req := &Request{API: APIChat, Body: body, Header: r.Header.Clone(), At: time.Now()}
	if err := json.Unmarshal(body, &req.Chat); err != nil {
		writeError(w, http.StatusBadRequest, "modeltest: decode request: "+err.Error(), 0)
		return
	}
	reply, ok := s.answer(w, r, req)
	if !ok {
		return
	}
	content, calls, finish := shape(reply)
	usage := usageOf(reply, body, content, calls)
	id := fmt.Sprintf("chatcmpl-%d", time.Now().UnixNano())

	if !req.Chat.Stream {
		writeCompletion(w, id, req.Chat.Model, content, calls, finish, usage)
		return
	}
	includeUsage := req.Chat.StreamOptions != nil && req.Chat.StreamOptions.IncludeUsage
	streamCompletion(w, r, id, req.Chat.Model, content, calls, finish, usage, includeUsage, reply.ChunkSize, reply.StallAfter)
}

// usageOf is the reply's usage: scripted, or estimated from the request
// and reply sizes.
func usageOf(reply Reply, body []byte, content string, calls []ToolCall) openai.Usage {
	usage := openai.Usage{
		PromptTokens:     len(body) / 4,
		CompletionTokens: (len(content) + argsLen(calls)) / 4,
	}
	if reply.Usage != nil {
		usage = *reply.Usage
	}
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	return usage
}

// answer records req, finds the step that answers it, and plays the
// step's delay and scripted error. ok is false when the response is
// already written (an error) or the client went away.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, req *Request) (reply Reply, ok bool) {
	s.mu.Lock()
	req.Role = s.roleOf(&req.Chat)
	var step *Step
	for _, st := range s.steps[req.Role] {
		if st.available() && (st.Match == nil || st.Match(req)) {
			step = st
			st.used++
			break
		}
	}
	req.Matched = step != nil
	s.requests = append(s.requests, req)
	s.changed()
	s.mu.Unlock()

	if step == nil {
		writeError(w, http.StatusInternalServerError,
			fmt.Sprintf("modeltest: no script step for role %q matches request %d", req.Role, len(s.Requests(""))), 0)
		return Reply{}, false
	}
	reply = step.Reply
	if step.Func != nil {
		reply = step.Func(req)
	}

	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return Reply{}, false
		}
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply.Status, "modeltest: scripted fault "+strconv.Itoa(reply.Status), reply.RetryAfter)
		return Reply{}, false
	}
	return reply, true
}

// shape applies defaults and truncation to a reply.
func shape(r Reply) (string, []ToolCall, string) {
	content := r.Content
	calls := make([]ToolCall, len(r.ToolCalls))
	copy(calls, r.ToolCalls)
	for i := range calls {
		if calls[i].ID == "" {
			calls[i].ID = fmt.Sprintf("call_%d_%d", time.Now().UnixNano()%1e6, i)
		}
	}
	finish := r.FinishReason
	if finish == "" {
		finish = "stop"
		if len(calls) > 0 {
			finish = "tool_calls"
		}
	}
	if n := r.TruncateAt; n > 0 {
		finish = "length"
		if len(content) >= n {
			content = content[:n]
			calls = nil
		} else {
			n -= len(content)
			for i := range calls {
				if len(calls[i].Args) >= n {
					calls[i].Args = calls[i].Args[:n]
					calls = calls[:i+1]
					break
				}
				n -= len(calls[i].Args)
			}
		}
	}
	return content, calls, finish
}

func argsLen(calls []ToolCall) int {
	n := 0
	for _, c := range calls {
		n += len(c.Args)
	}
	return n
}
