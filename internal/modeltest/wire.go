package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Wire structures: written here rather than taken from go-openai so the
// server controls exactly which fields each chunk carries.
type wireFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type wireToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
}

type wireMessage struct {
	Role      string         `json:"role,omitempty"`
	Content   *string        `json:"content,omitempty"`
	ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
}

type wireChoice struct {
	Index        int          `json:"index"`
	Message      *wireMessage `json:"message,omitempty"`
	Delta        *wireMessage `json:"delta,omitempty"`
	FinishReason *string      `json:"finish_reason"`
}

type wireCompletion struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []wireChoice  `json:"choices"`
	Usage   *openai.Usage `json:"usage,omitempty"`
}

func writeCompletion(w http.ResponseWriter, id, model, content string, calls []ToolCall, finish string, usage openai.Usage) {
	msg := &wireMessage{Role: "assistant", Content: &content}
	for _, c := range calls {
		msg.ToolCalls = append(msg.ToolCalls, wireToolCall{
			ID: c.ID, Type: "function", Function: wireFunction{Name: c.Name, Arguments: c.Args},
		})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(wireCompletion{
		ID: id, Object: "chat.completion", Created: time.Now().Unix(), Model: model,
		Choices: []wireChoice{{Message: msg, FinishReason: &finish}},
		Usage:   &usage,
	})
}

func streamCompletion(w http.ResponseWriter, r *http.Request, id, model, content string, calls []ToolCall,
	finish string, usage openai.Usage, includeUsage bool, chunk, stallAfter int) {
	if chunk <= 0 {
		chunk = 7
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	cw := &chunkWriter{w: w, r: r, id: id, model: model, stallAfter: stallAfter}
	cw.flusher, _ = w.(http.Flusher)
	send := cw.send
	delta := func(d *wireMessage) wireCompletion {
		return wireCompletion{Choices: []wireChoice{{Delta: d}}}
	}

	empty := ""
	if !send(delta(&wireMessage{Role: "assistant", Content: &empty})) {
		return
	}
	for _, piece := range split(content, chunk) {
		p := piece
		if !send(delta(&wireMessage{Content: &p})) {
			return
		}
	}
	// Each call opens with a chunk carrying index, id and name; then the
	// arguments follow in pieces, interleaved across calls by index as
	// providers do when a model emits parallel calls.
	pieces := make([][]string, len(calls))
	for i, c := range calls {
		idx := i
		pieces[i] = split(c.Args, chunk)
		if !send(delta(&wireMessage{ToolCalls: []wireToolCall{{
			Index: &idx, ID: c.ID, Type: "function", Function: wireFunction{Name: c.Name},
		}}})) {
			return
		}
	}
	for more := true; more; {
		more = false
		for i := range pieces {
			if len(pieces[i]) == 0 {
				continue
			}
			more = true
			idx := i
			if !send(delta(&wireMessage{ToolCalls: []wireToolCall{{
				Index: &idx, Function: wireFunction{Arguments: pieces[i][0]},
			}}})) {
				return
			}
			pieces[i] = pieces[i][1:]
		}
	}
	if !send(wireCompletion{Choices: []wireChoice{{Delta: &wireMessage{}, FinishReason: &finish}}}) {
		return
	}
	if includeUsage {
		if !send(wireCompletion{Choices: []wireChoice{}, Usage: &usage}) {
			return
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if cw.flusher != nil {
		cw.flusher.Flush()
	}
}

// chunkWriter sends a stream's chunks as server-sent events, and plays a
// server that goes silent after stallAfter of them.
type chunkWriter struct {
	w          http.ResponseWriter
	r          *http.Request
	flusher    http.Flusher
	id, model  string
	sent       int
	stallAfter int
}

// send writes one chunk; false when the client has gone (or the server
// has gone silent and the client then left).
func (cw *chunkWriter) send(c wireCompletion) bool {
	if cw.r.Context().Err() != nil {
		return false
	}
	if cw.sent++; cw.stallAfter > 0 && cw.sent > cw.stallAfter {
		<-cw.r.Context().Done() // silent, the stream left open
		return false
	}
	c.ID, c.Object, c.Created, c.Model = cw.id, "chat.completion.chunk", time.Now().Unix(), cw.model
	b, _ := json.Marshal(c) // wire types always marshal
	if _, err := fmt.Fprintf(cw.w, "data: %s\n\n", b); err != nil {
		return false
	}
	if cw.flusher != nil {
		cw.flusher.Flush()
	}
	return true
}

func split(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
