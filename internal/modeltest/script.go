package modeltest

import (
	"encoding/json"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Step is one scripted answer: when Match accepts a request for the step's
// role, the server answers with Reply, or with the result of Func when it is
// set. A step is used once unless Times says otherwise; steps of a role are
// tried in the order they were added, so a list of steps without matchers
// plays as a sequence.
type Step struct {
	// Match decides whether this step answers the request; nil matches any.
	Match Matcher
	// Reply is the static answer.
	Reply Reply
	// Func, when set, computes the answer from the request instead of Reply.
	Func func(*Request) Reply
	// Times is how often the step may be used: 0 means once, a negative
	// value means without limit.
	Times int

	used int
}

func (s *Step) available() bool {
	return s.Times < 0 || s.used < max(s.Times, 1)
}

// Reply is what the server sends back for one model request, through
// either API.
type Reply struct {
	// Content is the assistant's text (may include <think> blocks).
	Content string
	// ToolCalls are the calls the model makes in this turn.
	ToolCalls []ToolCall
	// FinishReason defaults to "tool_calls" when there are tool calls and
	// "stop" otherwise.
	FinishReason string
	// Usage overrides the token counts; by default they are estimated from
	// the request and reply sizes (about four bytes a token).
	Usage *openai.Usage

	// Status, when not zero or 200, makes the server answer with that HTTP
	// status and an OpenAI-style error body instead of a completion.
	Status int
	// RetryAfter is sent as the Retry-After header with an error status.
	RetryAfter time.Duration
	// Delay holds the answer back, honouring the request's context.
	Delay time.Duration
	// ChunkSize is how many bytes of content or arguments go in one
	// streamed chunk; 0 means 7, small enough to split every argument.
	ChunkSize int
	// Interleave, through the Responses API, opens every function_call
	// item before any arguments and sends the calls' argument deltas in
	// turn, as parallel calls may arrive; by default each item streams
	// whole before the next opens, as OpenAI sends them. (Chat
	// Completions always interleaves by index.)
	Interleave bool
	// StallAfter, when positive, sends that many streamed chunks and then
	// nothing more, holding the connection open until the client leaves:
	// a server that stops mid-reply.
	StallAfter int
	// TruncateAt, when positive, cuts the reply after that many bytes of
	// content plus arguments, as a model hitting max_tokens does, and sets
	// finish_reason to "length".
	TruncateAt int
}

// ToolCall is one function call in a scripted reply. Args is sent verbatim,
// so it can be malformed on purpose.
type ToolCall struct {
	ID   string
	Name string
	Args string
}

// Call returns a reply with one tool call whose arguments are args encoded
// as JSON.
func Call(name string, args any) Reply {
	return Reply{ToolCalls: []ToolCall{CallOf(name, args)}}
}

// Calls returns a reply with several tool calls in one turn.
func Calls(calls ...ToolCall) Reply {
	return Reply{ToolCalls: calls}
}

// CallOf builds a ToolCall with arguments encoded as JSON.
func CallOf(name string, args any) ToolCall {
	b, err := json.Marshal(args)
	if err != nil {
		// Scripts are test data: a value that cannot be encoded is sent as
		// its error so the failing test shows it.
		b = []byte(err.Error())
	}
	return ToolCall{Name: name, Args: string(b)}
}

// Text returns a reply with prose only, as a model does when it answers
// instead of calling a tool.
func Text(s string) Reply {
	return Reply{Content: s}
}

// MalformedArgs returns a reply calling name with arguments that are not
// valid JSON.
func MalformedArgs(name, args string) Reply {
	return Reply{ToolCalls: []ToolCall{{Name: name, Args: args}}}
}

// RateLimited returns a 429 reply with a Retry-After header.
func RateLimited(after time.Duration) Reply {
	return Reply{Status: 429, RetryAfter: after}
}

// ServerError returns a 500 reply.
func ServerError() Reply {
	return Reply{Status: 500}
}

// Slow returns r delayed by d.
func Slow(d time.Duration, r Reply) Reply {
	r.Delay = d
	return r
}

// Stalled returns r cut off after n streamed chunks by a server that then
// goes silent without closing the stream.
func Stalled(n int, r Reply) Reply {
	r.StallAfter = n
	return r
}

// Think returns r with a <think> block before its content.
func Think(thought string, r Reply) Reply {
	r.Content = "<think>" + thought + "</think>" + r.Content
	return r
}

// Truncated returns r cut after n bytes of content and arguments, with
// finish_reason "length".
func Truncated(n int, r Reply) Reply {
	r.TruncateAt = n
	return r
}

// Matcher reports whether a step answers a request.
type Matcher func(*Request) bool

// Any matches every request.
func Any() Matcher { return func(*Request) bool { return true } }

// And matches when all ms match.
func And(ms ...Matcher) Matcher {
	return func(r *Request) bool {
		for _, m := range ms {
			if m != nil && !m(r) {
				return false
			}
		}
		return true
	}
}

// Not inverts m.
func Not(m Matcher) Matcher {
	return func(r *Request) bool { return !m(r) }
}

// LastToolResultContains matches when the last message is a tool result
// containing s.
func LastToolResultContains(s string) Matcher {
	return func(r *Request) bool {
		m, ok := r.LastMessage()
		return ok && m.Role == openai.ChatMessageRoleTool && strings.Contains(MessageText(m), s)
	}
}

// LastMessageContains matches when the last message, whatever its role,
// contains s.
func LastMessageContains(s string) Matcher {
	return func(r *Request) bool {
		m, ok := r.LastMessage()
		return ok && strings.Contains(MessageText(m), s)
	}
}

// SystemContains matches when a system message contains s; agents put
// their task there, which tells executors of one role apart.
func SystemContains(s string) Matcher {
	return MessageContains(openai.ChatMessageRoleSystem, s)
}

// MessageContains matches when any message of the given role contains s;
// role "" means any role.
func MessageContains(role, s string) Matcher {
	return func(r *Request) bool {
		for _, m := range r.Chat.Messages {
			if (role == "" || m.Role == role) && strings.Contains(MessageText(m), s) {
				return true
			}
		}
		return false
	}
}

// ToolResults matches when the request carries exactly n tool results,
// i.e. the agent is at its (n+1)th model call.
func ToolResults(n int) Matcher {
	return func(r *Request) bool { return r.ToolResults() == n }
}

// MessageText joins the text of a message, whether it is a plain string or
// multi-part content.
func MessageText(m openai.ChatCompletionMessage) string {
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
