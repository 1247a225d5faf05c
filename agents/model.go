package agents

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Role names the job a model does in a run; each role may use a different
// model.
type Role string

// The roles of a run.
const (
	RolePlanner  Role = "planner"
	RoleExecutor Role = "executor"
	RoleVision   Role = "vision"
)

// Price is what a model costs, in dollars per million tokens.
type Price struct {
	Prompt     float64
	Completion float64
}

// ModelConfig configures a Model.
type ModelConfig struct {
	// BaseURL is any OpenAI-compatible endpoint; "/v1" is appended when
	// missing.
	BaseURL string
	// APIKey is sent as a bearer token. It is never logged.
	APIKey string
	// Models maps each role to a model name. A role without an entry uses
	// the executor's model; the vision role falls back to the executor's.
	Models map[Role]string
	// API is how the models are spoken to: APIChat, APIResponses, or
	// APIAuto ("" too), which picks per model (ResolveAPI).
	API API
	// Efforts maps each role to a reasoning effort ("low", "high"...),
	// sent where the API takes one; a role without an entry uses the
	// executor's, and "" sends none (the server's default).
	Efforts map[Role]string
	// Prices maps model names to their price, for the cost estimate.
	// Models without a price cost nothing.
	Prices map[string]Price
	// CallTimeout bounds one attempt of one call (default 2 minutes).
	CallTimeout time.Duration
	// FirstByteTimeout bounds the wait for a reply to begin, and
	// IdleTimeout the silence inside a streamed reply (default 30 s
	// each): a server quiet for longer has stalled (ErrModelStalled).
	FirstByteTimeout, IdleTimeout time.Duration
	// MaxRetryAfter is the longest Retry-After obeyed (default 60 s); a
	// server asking for longer has refused the call (ErrModelBusy).
	MaxRetryAfter time.Duration
	// SlowNotice is how long a call or a retry's wait goes before the
	// person is told of it (default 5 s).
	SlowNotice time.Duration
	// MaxRetries is how many times a call is retried after a 429, a 5xx,
	// a timeout or a network error (0: 3; negative: never).
	MaxRetries int
	// Backoff is the first retry's wait, doubled each retry, when the
	// server does not say how long to wait (default 1 s).
	Backoff time.Duration
	// MaxTokens caps a reply's length (0: the server's default).
	MaxTokens int
	// Clock times the back-off (default the wall clock).
	Clock Clock
	// KeyHint says where the person sets the key ("set it in Settings"),
	// added to the failure when the server refuses it.
	KeyHint string
	// HTTPClient is the client to use (default a new http.Client).
	HTTPClient *http.Client
}

// Usage is token use and its estimated cost.
type Usage struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Cost             float64 `json:"cost"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.PromptTokens + v.PromptTokens, u.CompletionTokens + v.CompletionTokens, u.Cost + v.Cost}
}

// Total returns prompt plus completion tokens.
func (u Usage) Total() int { return u.PromptTokens + u.CompletionTokens }

// modelCall is one request to a model.
type modelCall struct {
	Role     Role
	Messages []openai.ChatCompletionMessage
	Tools    []openai.Tool
	// Agent names the caller in what the person is told of long waits.
	Agent string
	// Progress, when set, is told of waits longer than a few seconds.
	Progress func(ModelWait)
}

// toolCall is one assembled function call from a reply.
type toolCall struct {
	ID   string
	Name string
	// Args is the raw argument text, which may be malformed JSON.
	Args string
}

// modelReply is a model's answer to a Call.
type modelReply struct {
	// Content is the visible text, with <think> blocks removed.
	Content string
	// Thinking holds the removed <think> blocks.
	Thinking  string
	ToolCalls []toolCall
	// Truncated reports that the reply hit the token limit.
	Truncated bool
	Usage     Usage
	// Attempts is how many requests the call took (1 without retries).
	Attempts int
}

// Errors of the model client.
var (
	// ErrModel wraps a failure after every retry was spent, or one that is
	// not worth retrying.
	ErrModel = errors.New("model call failed")
	// ErrNoModel is returned when no model is configured for a role.
	ErrNoModel = errors.New("no model configured")
)

// Model is a client for an OpenAI-compatible endpoint, spoken to through
// Chat Completions or the Responses API per model (ModelConfig.API).
// It is safe for concurrent use.
type Model struct {
	cfg    ModelConfig
	client *openai.Client
}

// NormalizeBaseURL returns u with a trailing "/v1", as go-openai expects.
func NormalizeBaseURL(u string) string {
	u = strings.TrimRight(strings.TrimSpace(u), "/")
	if u == "" {
		return "https://api.openai.com/v1"
	}
	if strings.HasSuffix(u, "/v1") {
		return u
	}
	// Providers such as Gemini put the version elsewhere
	// (".../v1beta/openai"); leave a URL that already names one alone.
	last := u[strings.LastIndex(u, "/")+1:]
	if last == "openai" || strings.HasPrefix(last, "v1") || strings.HasPrefix(last, "v2") {
		return u
	}
	return u + "/v1"
}

// NewModel returns a client for cfg.
func NewModel(cfg ModelConfig) *Model {
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = 2 * time.Minute
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 3
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = time.Second
	}
	cfg.FirstByteTimeout = cmp.Or(cfg.FirstByteTimeout, defaultFirstByte)
	cfg.IdleTimeout = cmp.Or(cfg.IdleTimeout, defaultIdle)
	cfg.MaxRetryAfter = cmp.Or(cfg.MaxRetryAfter, defaultMaxRetryAfter)
	cfg.SlowNotice = cmp.Or(cfg.SlowNotice, defaultSlowNotice)
	if cfg.Clock == nil {
		cfg.Clock = wallClock()
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	// Wrap the transport to read Retry-After, which go-openai drops.
	wrapped := *hc
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	wrapped.Transport = retryAfterTransport{base}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = NormalizeBaseURL(cfg.BaseURL)
	oc.HTTPClient = &wrapped
	return &Model{cfg: cfg, client: openai.NewClientWithConfig(oc)}
}

// modelFor returns the model used for role.
func (m *Model) modelFor(role Role) string {
	if n := m.cfg.Models[role]; n != "" {
		return n
	}
	return m.cfg.Models[RoleExecutor]
}

// effortFor returns the reasoning effort of role.
func (m *Model) effortFor(role Role) string {
	if e, ok := m.cfg.Efforts[role]; ok {
		return e
	}
	return m.cfg.Efforts[RoleExecutor]
}

// APIFor returns the API role's model is spoken to with.
func (m *Model) APIFor(role Role) API { return ResolveAPI(m.cfg.API, m.modelFor(role)) }

// ModelFor returns the model role uses ("" when none is configured).
func (m *Model) ModelFor(role Role) string { return m.modelFor(role) }

// ListModels returns the ids of the models the endpoint offers, for a
// settings screen to choose from.
func (m *Model) ListModels(ctx context.Context) ([]string, error) {
	list, err := m.client.ListModels(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	ids := make([]string, len(list.Models))
	for i, md := range list.Models {
		ids[i] = md.ID
	}
	return ids, nil
}

// Cost estimates what u cost on model.
func (m *Model) cost(model string, u Usage) float64 {
	p := m.cfg.Prices[model]
	return (float64(u.PromptTokens)*p.Prompt + float64(u.CompletionTokens)*p.Completion) / 1e6
}

// complete sends c, retrying transient failures, and returns the assembled
// reply. The context bounds the whole call, retries included.
func (m *Model) complete(ctx context.Context, c modelCall) (_ modelReply, err error) {
	model := m.modelFor(c.Role)
	if model == "" {
		return modelReply{}, fmt.Errorf("complete %s: %w", c.Role, ErrNoModel)
	}
	send := m.sender(c, model)
	backoff := m.cfg.Backoff
	n := m.notifier(c)
	defer func() { n.done(err) }()
	for attempt := 1; ; attempt++ {
		stop := n.attempt(attempt)
		r, retryAfter, err := send(ctx)
		stop()
		if err == nil {
			r.Attempts = attempt
			r.Usage.Cost = m.cost(model, r.Usage)
			return r, nil
		}
		if ctx.Err() != nil {
			return modelReply{}, fmt.Errorf("complete %s: %w", c.Role, ctx.Err())
		}
		if retryAfter > m.cfg.MaxRetryAfter {
			return modelReply{}, fmt.Errorf("complete %s: %w", c.Role, m.busy(err, attempt, retryAfter))
		}
		if !retryable(err) || attempt > m.cfg.MaxRetries || (errors.Is(err, ErrModelStalled) && attempt > stallRetries) {
			if f := m.fault(err, attempt); f != nil {
				return modelReply{}, fmt.Errorf("complete %s: %w", c.Role, f)
			}
			return modelReply{}, fmt.Errorf("complete %s after %d attempts: %w: %w", c.Role, attempt, ErrModel, err)
		}
		wait := retryAfter
		if wait <= 0 {
			// Jitter spreads retries of parallel executors.
			wait = backoff + time.Duration(rand.Int64N(int64(backoff)/4+1))
			backoff *= 2
		}
		n.retrying(wait, attempt+1, err)
		if err := sleep(ctx, m.cfg.Clock, wait); err != nil {
			return modelReply{}, fmt.Errorf("complete %s: %w", c.Role, err)
		}
	}
}

// busy is the fault of a server that asked to be retried after longer
// than Vroom waits.
func (m *Model) busy(err error, attempts int, retryAfter time.Duration) *ModelFault {
	return &ModelFault{Kind: ErrModelBusy, URL: NormalizeBaseURL(m.cfg.BaseURL), Status: httpStatus(err),
		Attempts: attempts, RetryAfter: retryAfter, MaxWait: m.cfg.MaxRetryAfter, Err: err}
}

// sender returns one attempt at c through the API its model is spoken to
// with; retries, faults and costs are the same whichever it is.
func (m *Model) sender(c modelCall, model string) func(context.Context) (modelReply, time.Duration, error) {
	effort := m.effortFor(c.Role)
	if m.APIFor(c.Role) == APIResponses {
		req := responsesRequest(model, effort, c, m.cfg.MaxTokens)
		return func(ctx context.Context) (modelReply, time.Duration, error) {
			return m.onceResponses(ctx, req, c.Messages)
		}
	}
	req := openai.ChatCompletionRequest{
		Model:           model,
		Messages:        c.Messages,
		Tools:           c.Tools,
		Stream:          true,
		StreamOptions:   &openai.StreamOptions{IncludeUsage: true},
		ReasoningEffort: effort,
	}
	if reasoningModel(model) {
		// Reasoning models refuse max_tokens; their cap counts thought too.
		req.MaxCompletionTokens = m.cfg.MaxTokens
	} else {
		req.MaxTokens = m.cfg.MaxTokens
	}
	return func(ctx context.Context) (modelReply, time.Duration, error) { return m.once(ctx, req) }
}

// reasoningModel reports whether go-openai checks model as a reasoning
// model (o1, o3, o4, gpt-5, gpt-6), which takes max_completion_tokens.
func reasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// once makes one streamed Chat Completions request.
func (m *Model) once(ctx context.Context, req openai.ChatCompletionRequest) (modelReply, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, m.cfg.CallTimeout)
	defer cancel()
	ctx, wd, release := newWatchdog(ctx)
	defer release()
	hold := &retryAfterHolder{}
	ctx = context.WithValue(ctx, retryAfterKey{}, hold)

	wd.arm(m.cfg.FirstByteTimeout, phaseFirst)
	stream, err := m.client.CreateChatCompletionStream(ctx, req)
	if errors.Is(err, openai.ErrReasoningToolsRequireResponses) {
		return modelReply{}, 0, fmt.Errorf("%w (set the model API to auto or responses for %s)", err, req.Model)
	}
	if err != nil {
		return modelReply{}, hold.get(), stalled(ctx, err)
	}
	defer stream.Close()

	var (
		content  strings.Builder
		calls    []*toolCall
		byIndex  = map[int]*toolCall{}
		finish   openai.FinishReason
		usage    Usage
		gotUsage bool
	)
	for {
		wd.arm(m.cfg.IdleTimeout, phaseNext)
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return modelReply{}, hold.get(), stalled(ctx, err)
		}
		if resp.Usage != nil {
			usage = Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}
			gotUsage = true
		}
		for _, ch := range resp.Choices {
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
			content.WriteString(ch.Delta.Content)
			calls = mergeToolCalls(calls, byIndex, ch.Delta.ToolCalls)
		}
	}
	r := modelReply{Truncated: finish == openai.FinishReasonLength, Usage: usage}
	r.Content, r.Thinking = stripThink(content.String())
	for i, c := range calls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", i)
		}
		r.ToolCalls = append(r.ToolCalls, *c)
	}
	if !gotUsage {
		r.Usage = estimateUsage(req.Messages, content.Len(), len(r.ToolCalls))
	}
	return r, 0, nil
}

// mergeToolCalls adds streamed tool-call deltas to the calls assembled so
// far, by index, and returns them in order of first appearance.
func mergeToolCalls(calls []*toolCall, byIndex map[int]*toolCall, deltas []openai.ToolCall) []*toolCall {
	for _, tc := range deltas {
		idx := len(calls)
		if tc.Index != nil {
			idx = *tc.Index
		} else if tc.ID == "" && len(calls) > 0 {
			// A provider without indexes continues the last call.
			idx = len(calls) - 1
		}
		cur := byIndex[idx]
		if cur == nil {
			cur = &toolCall{}
			byIndex[idx] = cur
			calls = append(calls, cur)
		}
		if tc.ID != "" {
			cur.ID = tc.ID
		}
		cur.Name += tc.Function.Name
		cur.Args += tc.Function.Arguments
	}
	return calls
}

// estimateUsage stands in for the usage a server that ignores
// include_usage never sends, so budgets still hold: about four characters
// a token.
func estimateUsage(msgs []openai.ChatCompletionMessage, contentLen, toolCalls int) Usage {
	n := 0
	for _, msg := range msgs {
		n += len(msg.Content)
		for _, p := range msg.MultiContent {
			n += len(p.Text)
		}
	}
	return Usage{PromptTokens: n / 4, CompletionTokens: (contentLen + toolCalls*16) / 4}
}

// fault classifies a call's last error as a fault no retry mends: a key
// refused (401, 403: never retried, since asking again cannot help), or a
// server that stayed unreachable through every retry. nil: an ordinary
// failure (a 400, 5xx that kept coming), which ends only the calling agent.
func (m *Model) fault(err error, attempts int) *ModelFault {
	f := &ModelFault{URL: NormalizeBaseURL(m.cfg.BaseURL), Attempts: attempts, Err: err}
	switch st := httpStatus(err); {
	case st == http.StatusUnauthorized || st == http.StatusForbidden:
		f.Kind, f.Status, f.Hint = ErrKeyRefused, st, m.cfg.KeyHint
		return f
	case st != 0:
		return nil
	}
	if errors.Is(err, ErrModelStalled) {
		f.Kind = ErrModelStalled
		return f
	}
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) {
		f.Kind = ErrModelUnreachable
		return f
	}
	return nil
}

// httpStatus is the HTTP status go-openai kept in err, or 0.
func httpStatus(err error) int {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode
	}
	return 0
}

// retryable reports whether err is worth another attempt: rate limits,
// server errors, timeouts and broken connections.
func retryable(err error) bool {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode == http.StatusTooManyRequests || apiErr.HTTPStatusCode >= 500 || apiErr.HTTPStatusCode == 408
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode == http.StatusTooManyRequests || reqErr.HTTPStatusCode >= 500 || reqErr.HTTPStatusCode == 408
	}
	var sf *streamFailure
	if errors.As(err, &sf) {
		return sf.temporary()
	}
	if errors.Is(err, ErrModelStalled) {
		return true // complete retries a stall only stallRetries times
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var netErr net.Error
	return errors.As(err, &netErr)
}

type retryAfterKey struct{}

type retryAfterHolder struct {
	mu sync.Mutex
	d  time.Duration
}

func (h *retryAfterHolder) get() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.d
}

type retryAfterTransport struct{ base http.RoundTripper }

func (t retryAfterTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	if h, ok := r.Context().Value(retryAfterKey{}).(*retryAfterHolder); ok {
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			h.mu.Lock()
			h.d = d
			h.mu.Unlock()
		}
	}
	return resp, nil
}

// parseRetryAfter reads either delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// stripThink removes <think>…</think> blocks (and an unclosed trailing
// one) from s, returning the visible text and the thoughts.
func stripThink(s string) (visible, thinking string) {
	var vis, th strings.Builder
	for {
		i := strings.Index(s, "<think>")
		if i < 0 {
			vis.WriteString(s)
			break
		}
		vis.WriteString(s[:i])
		s = s[i+len("<think>"):]
		j := strings.Index(s, "</think>")
		if j < 0 {
			th.WriteString(s)
			break
		}
		th.WriteString(s[:j])
		s = s[j+len("</think>"):]
	}
	// Some servers send only the closing tag (the opening one is in the
	// template); everything before it is thought.
	v := vis.String()
	if j := strings.Index(v, "</think>"); j >= 0 {
		th.WriteString(v[:j])
		v = v[j+len("</think>"):]
	}
	return strings.TrimSpace(v), strings.TrimSpace(th.String())
}
