package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// OpenAI's Responses API (POST /v1/responses): the same scripts answer it,
// streamed as server-sent events named as OpenAI names them.

// wireResponsesRequest is the part of a Responses request the server reads.
type wireResponsesRequest struct {
	Model           string          `json:"model"`
	Instructions    string          `json:"instructions"`
	Input           json.RawMessage `json:"input"`
	Tools           []wireRespTool  `json:"tools"`
	Stream          bool            `json:"stream"`
	MaxOutputTokens int             `json:"max_output_tokens"`
	Reasoning       *struct {
		Effort string `json:"effort"`
	} `json:"reasoning"`
}

type wireRespTool struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Parameters  any    `json:"parameters"`
}

type wireInputItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
}

type wireInputPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
	Detail   string `json:"detail"`
}

// responses answers POST /v1/responses.
func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "modeltest: read body: "+err.Error(), 0)
		return
	}
	var wr wireResponsesRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		writeError(w, http.StatusBadRequest, "modeltest: decode request: "+err.Error(), 0)
		return
	}
	chat, err := responsesChat(wr)
	if err != nil {
		writeError(w, http.StatusBadRequest, "modeltest: "+err.Error(), 0)
		return
	}
	req := &Request{API: APIResponses, Chat: chat, Body: body, Header: r.Header.Clone(), At: time.Now()}
	reply, ok := s.answer(w, r, req)
	if !ok {
		return
	}
	content, calls, finish := shape(reply)
	usage := usageOf(reply, body, content, calls)
	out := newRespOutput(wr.Model, content, calls, finish, usage)
	if !wr.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out.response(true))
		return
	}
	streamResponse(w, r, out, reply)
}

// responsesChat converts a Responses request to the chat request the
// scripts read: instructions as a system message, input messages as
// messages, function_call items as the assistant's tool calls,
// function_call_output items as tool messages, input_image parts as image
// parts, reasoning.effort and max_output_tokens as their chat fields.
func responsesChat(wr wireResponsesRequest) (openai.ChatCompletionRequest, error) {
	c := openai.ChatCompletionRequest{Model: wr.Model, Stream: wr.Stream, MaxCompletionTokens: wr.MaxOutputTokens}
	if wr.Reasoning != nil {
		c.ReasoningEffort = wr.Reasoning.Effort
	}
	for _, t := range wr.Tools {
		c.Tools = append(c.Tools, openai.Tool{Type: openai.ToolType(t.Type), Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters,
		}})
	}
	if wr.Instructions != "" {
		c.Messages = append(c.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: wr.Instructions})
	}
	var text string
	if json.Unmarshal(wr.Input, &text) == nil {
		c.Messages = append(c.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: text})
		return c, nil
	}
	var items []wireInputItem
	if err := json.Unmarshal(wr.Input, &items); err != nil {
		return c, fmt.Errorf("decode input: %w", err)
	}
	for _, it := range items {
		msgs, err := appendItem(c.Messages, it)
		if err != nil {
			return c, err
		}
		c.Messages = msgs
	}
	return c, nil
}

// appendItem adds one input item to the chat messages.
func appendItem(msgs []openai.ChatCompletionMessage, it wireInputItem) ([]openai.ChatCompletionMessage, error) {
	switch it.Type {
	case "function_call":
		tc := openai.ToolCall{ID: it.CallID, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: it.Name, Arguments: it.Arguments}}
		// Calls of one turn follow their assistant message, if any.
		if n := len(msgs); n > 0 && msgs[n-1].Role == openai.ChatMessageRoleAssistant {
			msgs[n-1].ToolCalls = append(msgs[n-1].ToolCalls, tc)
			return msgs, nil
		}
		return append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{tc}}), nil
	case "function_call_output":
		m, err := contentMessage(openai.ChatMessageRoleTool, it.Output)
		m.ToolCallID = it.CallID
		return append(msgs, m), err
	case "message", "":
		if it.Role == "" {
			return msgs, fmt.Errorf("input message without a role")
		}
		m, err := contentMessage(it.Role, it.Content)
		return append(msgs, m), err
	}
	return msgs, fmt.Errorf("input item of type %q is not supported", it.Type)
}

// contentMessage is a message of role with content given as a string or
// as parts (input_text, output_text, input_image).
func contentMessage(role string, raw json.RawMessage) (openai.ChatCompletionMessage, error) {
	m := openai.ChatCompletionMessage{Role: role}
	if len(raw) == 0 || json.Unmarshal(raw, &m.Content) == nil {
		return m, nil
	}
	var parts []wireInputPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return m, fmt.Errorf("decode %s content: %w", role, err)
	}
	for _, p := range parts {
		switch p.Type {
		case "input_image":
			m.MultiContent = append(m.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
				ImageURL: &openai.ChatMessageImageURL{URL: p.ImageURL, Detail: openai.ImageURLDetail(p.Detail)}})
		default:
			m.MultiContent = append(m.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: p.Text})
		}
	}
	return m, nil
}

// respOutput is one scripted reply as a Responses API response.
type respOutput struct {
	id, model, content, finish string
	msgID                      string
	calls                      []ToolCall
	usage                      openai.Usage
}

func newRespOutput(model, content string, calls []ToolCall, finish string, usage openai.Usage) *respOutput {
	n := time.Now().UnixNano()
	return &respOutput{id: fmt.Sprintf("resp_%d", n), msgID: fmt.Sprintf("msg_%d", n), model: model,
		content: content, calls: calls, finish: finish, usage: usage}
}

// firstCall is the output index of the first function call: the message,
// when there is text, comes first.
func (o *respOutput) firstCall() int {
	if o.content != "" {
		return 1
	}
	return 0
}

func (o *respOutput) messageItem(done bool) map[string]any {
	item := map[string]any{"id": o.msgID, "type": "message", "role": "assistant", "status": "in_progress", "content": []any{}}
	if done {
		item["status"] = "completed"
		item["content"] = []any{textPart(o.content)}
	}
	return item
}

func textPart(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
}

func (o *respOutput) callItem(i int, done bool) map[string]any {
	c := o.calls[i]
	item := map[string]any{"id": fmt.Sprintf("fc_%s", c.ID), "type": "function_call", "status": "in_progress",
		"call_id": c.ID, "name": c.Name, "arguments": ""}
	if done {
		item["status"], item["arguments"] = "completed", c.Args
	}
	return item
}

// response is the response object: in progress (no output yet, no usage)
// or final, completed or incomplete as the finish reason says.
func (o *respOutput) response(final bool) map[string]any {
	resp := map[string]any{"id": o.id, "object": "response", "created_at": time.Now().Unix(), "model": o.model,
		"status": "in_progress", "output": []any{}, "usage": nil, "error": nil, "incomplete_details": nil}
	if !final {
		return resp
	}
	var output []any
	if o.content != "" {
		output = append(output, o.messageItem(true))
	}
	for i := range o.calls {
		output = append(output, o.callItem(i, true))
	}
	resp["output"], resp["status"] = output, "completed"
	if o.finish == "length" {
		resp["status"], resp["incomplete_details"] = "incomplete", map[string]any{"reason": "max_output_tokens"}
	}
	resp["usage"] = map[string]any{
		"input_tokens": o.usage.PromptTokens, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": o.usage.CompletionTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens": o.usage.PromptTokens + o.usage.CompletionTokens,
	}
	return resp
}

// sseWriter writes numbered Responses events, each as an "event:" line
// and a "data:" line.
type sseWriter struct {
	w       http.ResponseWriter
	r       *http.Request
	flusher http.Flusher
	seq     int
	failed  bool
}

// send writes one event; after a failed write (the client gone) it does
// nothing, so a stream's steps need no check each.
func (e *sseWriter) send(typ string, fields map[string]any) {
	if e.failed || e.r.Context().Err() != nil {
		e.failed = true
		return
	}
	fields["type"], fields["sequence_number"] = typ, e.seq
	e.seq++
	b, _ := json.Marshal(fields)
	if _, err := fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", typ, b); err != nil {
		e.failed = true
		return
	}
	if e.flusher != nil {
		e.flusher.Flush()
	}
}

// streamResponse streams o as OpenAI does: created, in_progress, the
// message's text deltas, each function call's argument deltas (whole
// items in turn, or interleaved with Reply.Interleave), then completed
// (or incomplete, when cut at the token limit) with the usage.
func streamResponse(w http.ResponseWriter, r *http.Request, o *respOutput, reply Reply) {
	chunk := reply.ChunkSize
	if chunk <= 0 {
		chunk = 7
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	e := &sseWriter{w: w, r: r, flusher: flusher}
	e.send("response.created", map[string]any{"response": o.response(false)})
	e.send("response.in_progress", map[string]any{"response": o.response(false)})
	if o.content != "" {
		streamText(e, o, chunk)
	}
	streamCalls(e, o, chunk, reply.Interleave)
	if o.finish == "length" {
		e.send("response.incomplete", map[string]any{"response": o.response(true)})
		return
	}
	e.send("response.completed", map[string]any{"response": o.response(true)})
}

func streamText(e *sseWriter, o *respOutput, chunk int) {
	at := map[string]any{"item_id": o.msgID, "output_index": 0, "content_index": 0}
	with := func(k string, v any) map[string]any {
		m := map[string]any{k: v}
		for kk, vv := range at {
			m[kk] = vv
		}
		return m
	}
	e.send("response.output_item.added", map[string]any{"output_index": 0, "item": o.messageItem(false)})
	e.send("response.content_part.added", with("part", textPart("")))
	for _, piece := range split(o.content, chunk) {
		d := with("delta", piece)
		d["logprobs"] = []any{}
		e.send("response.output_text.delta", d)
	}
	e.send("response.output_text.done", with("text", o.content))
	e.send("response.content_part.done", with("part", textPart(o.content)))
	e.send("response.output_item.done", map[string]any{"output_index": 0, "item": o.messageItem(true)})
}

func streamCalls(e *sseWriter, o *respOutput, chunk int, interleave bool) {
	base := o.firstCall()
	pieces := make([][]string, len(o.calls))
	for i, c := range o.calls {
		pieces[i] = split(c.Args, chunk)
	}
	added := func(i int) {
		e.send("response.output_item.added", map[string]any{"output_index": base + i, "item": o.callItem(i, false)})
	}
	delta := func(i int) {
		item := o.callItem(i, false)
		e.send("response.function_call_arguments.delta", map[string]any{
			"item_id": item["id"], "output_index": base + i, "delta": pieces[i][0]})
		pieces[i] = pieces[i][1:]
	}
	done := func(i int) {
		c := o.calls[i]
		e.send("response.function_call_arguments.done", map[string]any{
			"item_id": o.callItem(i, false)["id"], "output_index": base + i, "name": c.Name, "arguments": c.Args})
		e.send("response.output_item.done", map[string]any{"output_index": base + i, "item": o.callItem(i, true)})
	}
	if !interleave {
		for i := range o.calls {
			added(i)
			for len(pieces[i]) > 0 {
				delta(i)
			}
			done(i)
		}
		return
	}
	for i := range o.calls {
		added(i)
	}
	for more := true; more; {
		more = false
		for i := range pieces {
			if len(pieces[i]) > 0 {
				delta(i)
				more = true
			}
		}
	}
	for i := range o.calls {
		done(i)
	}
}

// ResponsesInput is a Responses request's input items, as sent, for tests
// that check the wire form itself (function_call_output, input_image).
func (r *Request) ResponsesInput() []map[string]any {
	if r.API != APIResponses {
		return nil
	}
	var body struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		return nil
	}
	return body.Input
}

// HasInputItem reports whether the request's input has an item of type
// typ (for a Responses request) whose JSON contains s.
func (r *Request) HasInputItem(typ, s string) bool {
	for _, it := range r.ResponsesInput() {
		if it["type"] != typ {
			continue
		}
		b, _ := json.Marshal(it)
		if strings.Contains(string(b), s) {
			return true
		}
	}
	return false
}
