package agents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// API is the wire protocol a model is spoken to with.
type API string

// The APIs a model may be spoken to with.
const (
	// APIAuto picks per model (ResolveAPI): the Responses API for the
	// models Chat Completions refuses tools to, Chat Completions elsewhere.
	APIAuto API = "auto"
	// APIChat is Chat Completions (/v1/chat/completions), which every
	// OpenAI-compatible server speaks.
	APIChat API = "chat"
	// APIResponses is OpenAI's Responses API (/v1/responses).
	APIResponses API = "responses"
)

// Errors of the settings the model client takes.
var (
	// ErrBadAPI is returned by ParseAPI for a name that is not an API.
	ErrBadAPI = errors.New("unknown model API (use auto, chat or responses)")
	// ErrBadEffort is returned by ParseEffort for an unknown effort.
	ErrBadEffort = errors.New("unknown reasoning effort (use none, minimal, low, medium, high, xhigh or max)")
)

// ParseAPI returns the API named s; "" is APIAuto.
func ParseAPI(s string) (API, error) {
	switch a := API(strings.ToLower(strings.TrimSpace(s))); a {
	case "", APIAuto:
		return APIAuto, nil
	case APIChat, APIResponses:
		return a, nil
	}
	return "", fmt.Errorf("parse API %q: %w", s, ErrBadAPI)
}

// ParseEffort checks a reasoning effort; "" means the server's default and
// is sent as nothing.
func ParseEffort(s string) (string, error) {
	switch e := strings.ToLower(strings.TrimSpace(s)); e {
	case "", openai.ReasoningEffortNone, openai.ReasoningEffortMinimal, openai.ReasoningEffortLow,
		openai.ReasoningEffortMedium, openai.ReasoningEffortHigh, openai.ReasoningEffortXHigh, openai.ReasoningEffortMax:
		return e, nil
	}
	return "", fmt.Errorf("parse reasoning effort %q: %w", s, ErrBadEffort)
}

// ResolveAPI is the API model is spoken to with under mode. Chat and
// responses are taken as asked. Auto speaks the Responses API to the GPT-6
// family (model names starting "gpt-6"): go-openai refuses, before sending,
// tool calls over Chat Completions to gpt-6-astra and gpt-6.1-sol, and to
// gpt-6-sol and gpt-6-luna unless the effort is "none" — and the family's
// later names are taken to follow them. Every other model (other
// providers, local servers, which rarely speak the Responses API) gets
// Chat Completions.
func ResolveAPI(mode API, model string) API {
	switch mode {
	case APIChat, APIResponses:
		return mode
	}
	if strings.HasPrefix(strings.ToLower(model), "gpt-6") {
		return APIResponses
	}
	return APIChat
}

// responsesRequest is c as a streamed Responses API request. Nothing is
// stored on the server: every call carries the agent's whole history, as
// Chat Completions does, so both APIs see the same conversation.
func responsesRequest(model, effort string, c modelCall, maxTokens int) openai.CreateResponseRequest {
	store := false
	req := openai.CreateResponseRequest{
		Model:           model,
		Input:           responsesInput(c.Messages),
		Stream:          true,
		Store:           &store,
		MaxOutputTokens: maxTokens,
	}
	for _, t := range c.Tools {
		if t.Function != nil {
			req.Tools = append(req.Tools, openai.NewResponseFunctionTool(*t.Function))
		}
	}
	if effort != "" {
		req.Reasoning = &openai.ResponseReasoning{Effort: effort}
	}
	return req
}

// responsesInput converts the agent's history (kept as chat messages, the
// one internal form) to Responses input items: an assistant's tool calls
// become function_call items, tool results function_call_output items,
// and images input_image parts.
func responsesInput(msgs []openai.ChatCompletionMessage) []any {
	items := make([]any, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case openai.ChatMessageRoleTool:
			items = append(items, openai.ResponseFunctionCallOutput{
				Type: "function_call_output", CallID: m.ToolCallID, Output: messageText(m),
			})
		case openai.ChatMessageRoleAssistant:
			if text := messageText(m); text != "" {
				items = append(items, openai.ResponseInputMessage{Type: "message", Role: m.Role, Content: text})
			}
			for _, tc := range m.ToolCalls {
				args := tc.Function.Arguments
				if args == "" {
					args = "{}" // the API requires the field
				}
				items = append(items, openai.ResponseOutputItem{
					Type: "function_call", CallID: tc.ID, Name: tc.Function.Name, Arguments: args,
				})
			}
		default:
			items = append(items, openai.ResponseInputMessage{Type: "message", Role: m.Role, Content: inputContent(m)})
		}
	}
	return items
}

// inputContent is a message's content as the Responses API takes it: the
// plain string, or input_text and input_image parts.
func inputContent(m openai.ChatCompletionMessage) any {
	if len(m.MultiContent) == 0 {
		return m.Content
	}
	parts := make([]any, 0, len(m.MultiContent))
	for _, p := range m.MultiContent {
		switch {
		case p.Type == openai.ChatMessagePartTypeImageURL && p.ImageURL != nil:
			parts = append(parts, openai.ResponseInputImage{
				Type: "input_image", ImageURL: p.ImageURL.URL, Detail: string(p.ImageURL.Detail),
			})
		case p.Type == openai.ChatMessagePartTypeText:
			parts = append(parts, openai.ResponseInputText{Type: "input_text", Text: p.Text})
		}
	}
	return parts
}

// messageText is the text of a message, plain or in parts.
func messageText(m openai.ChatCompletionMessage) string {
	if len(m.MultiContent) == 0 {
		return m.Content
	}
	var b strings.Builder
	for _, p := range m.MultiContent {
		if p.Type == openai.ChatMessagePartTypeText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// streamFailure is a failure the Responses API reports inside a stream
// that began 200 OK: an error event, or response.failed.
type streamFailure struct {
	Code    string
	Message string
}

// Error says what the server reported.
func (e *streamFailure) Error() string {
	return fmt.Sprintf("the response failed: %s: %s", e.Code, e.Message)
}

// temporary reports whether asking again may help, as for a 429 or 5xx.
func (e *streamFailure) temporary() bool {
	switch e.Code {
	case "server_error", "rate_limit_exceeded", "server_is_overloaded", "slow_down":
		return true
	}
	return false
}

// onceResponses makes one streamed Responses API request, as once does
// for Chat Completions.
func (m *Model) onceResponses(ctx context.Context, req openai.CreateResponseRequest, msgs []openai.ChatCompletionMessage) (modelReply, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, m.cfg.CallTimeout)
	defer cancel()
	ctx, wd, release := newWatchdog(ctx)
	defer release()
	hold := &retryAfterHolder{}
	ctx = context.WithValue(ctx, retryAfterKey{}, hold)

	wd.arm(m.cfg.FirstByteTimeout, phaseFirst)
	stream, err := m.client.CreateResponseStream(ctx, req)
	if err != nil {
		return modelReply{}, hold.get(), stalled(ctx, err)
	}
	defer stream.Close()

	a := newResponseAssembler()
	for !a.finished {
		wd.arm(m.cfg.IdleTimeout, phaseNext)
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return modelReply{}, hold.get(), stalled(ctx, err)
		}
		if err := a.add(ev); err != nil {
			return modelReply{}, 0, err
		}
	}
	if !a.finished {
		// The stream ended without response.completed: the reply may be
		// cut anywhere, like a dropped connection.
		return modelReply{}, 0, fmt.Errorf("response stream ended early: %w", io.ErrUnexpectedEOF)
	}
	return a.reply(msgs), 0, nil
}

// responseAssembler builds a reply from Responses stream events. Function
// calls are keyed by item id (by output index for a server that sends
// none), so argument deltas of parallel calls may interleave.
type responseAssembler struct {
	content, thinking strings.Builder
	calls             []*toolCall
	byItem            map[string]*toolCall
	byIndex           map[int]*toolCall
	sawText           bool
	usage             *openai.ResponseUsage
	truncated         bool
	finished          bool
}

func newResponseAssembler() *responseAssembler {
	return &responseAssembler{byItem: map[string]*toolCall{}, byIndex: map[int]*toolCall{}}
}

// call returns the call of an item, creating it on first sight.
func (a *responseAssembler) call(itemID string, index int) *toolCall {
	if c := a.byItem[itemID]; itemID != "" && c != nil {
		return c
	}
	if c := a.byIndex[index]; itemID == "" && c != nil {
		return c
	}
	c := &toolCall{}
	a.calls = append(a.calls, c)
	a.byIndex[index] = c
	if itemID != "" {
		a.byItem[itemID] = c
	}
	return c
}

// add takes one event; an error event or a failed response is an error.
func (a *responseAssembler) add(ev openai.ResponseStreamEvent) error {
	switch ev.Type {
	case openai.ResponseStreamEventOutputItemAdded, openai.ResponseStreamEventOutputItemDone:
		a.item(ev)
	case openai.ResponseStreamEventFunctionArgumentsDelta:
		c := a.call(ev.ItemID, ev.OutputIndex)
		c.Args += ev.Delta
	case openai.ResponseStreamEventFunctionArgumentsDone:
		if ev.Arguments != "" {
			a.call(ev.ItemID, ev.OutputIndex).Args = ev.Arguments
		}
	case openai.ResponseStreamEventOutputTextDelta, openai.ResponseStreamEventRefusalDelta:
		a.sawText = true
		a.content.WriteString(ev.Delta)
	case openai.ResponseStreamEventReasoningSummaryTextDelta, openai.ResponseStreamEventReasoningTextDelta:
		a.thinking.WriteString(ev.Delta)
	case openai.ResponseStreamEventCompleted, openai.ResponseStreamEventIncomplete:
		a.finished = true
		if r := ev.Response; r != nil {
			a.usage = r.Usage
			a.truncated = r.IncompleteDetails != nil && r.IncompleteDetails.Reason == "max_output_tokens"
		}
	case openai.ResponseStreamEventFailed:
		f := &streamFailure{Code: "failed", Message: "no reason given"}
		if ev.Response != nil && ev.Response.Error != nil {
			f.Code, f.Message = ev.Response.Error.Code, ev.Response.Error.Message
		}
		return f
	case openai.ResponseStreamEventError:
		return &streamFailure{Code: ev.Code, Message: ev.Message}
	}
	return nil
}

// item takes an output item as it opens or closes: a function call's id
// and name (and, when done, its whole arguments, which win over the
// deltas), or a message's text from a server that sent no deltas.
func (a *responseAssembler) item(ev openai.ResponseStreamEvent) {
	it := ev.Item
	if it == nil {
		return
	}
	switch it.Type {
	case "function_call":
		c := a.call(it.ID, ev.OutputIndex)
		if it.CallID != "" {
			c.ID = it.CallID
		}
		if it.Name != "" {
			c.Name = it.Name
		}
		if ev.Type == openai.ResponseStreamEventOutputItemDone && it.Arguments != "" {
			c.Args = it.Arguments
		}
	case "message":
		if ev.Type != openai.ResponseStreamEventOutputItemDone || a.sawText {
			return
		}
		for _, p := range it.Content {
			a.content.WriteString(p.Text + p.Refusal)
		}
	}
}

// reply is the assembled reply; msgs estimate the usage a server did not
// report.
func (a *responseAssembler) reply(msgs []openai.ChatCompletionMessage) modelReply {
	r := modelReply{Truncated: a.truncated}
	r.Content, r.Thinking = stripThink(a.content.String())
	if th := strings.TrimSpace(a.thinking.String()); th != "" {
		r.Thinking = strings.TrimSpace(th + "\n" + r.Thinking)
	}
	for i, c := range a.calls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", i)
		}
		r.ToolCalls = append(r.ToolCalls, *c)
	}
	if a.usage != nil {
		r.Usage = Usage{PromptTokens: a.usage.InputTokens, CompletionTokens: a.usage.OutputTokens}
	} else {
		r.Usage = estimateUsage(msgs, a.content.Len(), len(r.ToolCalls))
	}
	return r
}
