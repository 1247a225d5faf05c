package modeltest

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// sseEvents posts body to /v1/responses and returns the events' names and
// data, checking each data line's type matches its event line.
func sseEvents(t *testing.T, s *Server, body string) ([]string, []map[string]any) {
	t.Helper()
	resp, err := http.Post(s.URL+"/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var names []string
	var data []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			names = append(names, strings.TrimPrefix(line, "event: "))
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatal(err)
			}
			if d["type"] != names[len(names)-1] || int(d["sequence_number"].(float64)) != len(data) {
				t.Fatalf("event %q carries %v", names[len(names)-1], d)
			}
			data = append(data, d)
		}
	}
	return names, data
}

// TestResponsesEndpointEvents: text, then two function calls, streamed as
// OpenAI names and orders the events, ending with usage; the request is
// recorded as chat messages for the helpers.
func TestResponsesEndpointEvents(t *testing.T) {
	t.Parallel()
	s := New(t)
	r := Calls(CallOf("click", map[string]string{"ref": "e1"}), ToolCall{ID: "call_b", Name: "done", Args: `{}`})
	r.Content, r.ChunkSize = "ok", 4
	s.Then("m", r)
	names, data := sseEvents(t, s, `{"model":"m","stream":true,"instructions":"be brief","reasoning":{"effort":"low"},
		"input":[{"type":"message","role":"user","content":"go"},
		{"type":"function_call","call_id":"c0","name":"read_page","arguments":"{}"},
		{"type":"function_call_output","call_id":"c0","output":"page text"}]}`)
	want := "response.created response.in_progress " +
		"response.output_item.added response.content_part.added response.output_text.delta response.output_text.done response.content_part.done response.output_item.done " +
		"response.output_item.added response.function_call_arguments.delta response.function_call_arguments.delta response.function_call_arguments.delta response.function_call_arguments.done response.output_item.done " +
		"response.output_item.added response.function_call_arguments.delta response.function_call_arguments.done response.output_item.done " +
		"response.completed"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	done := data[len(data)-1]["response"].(map[string]any)
	usage := done["usage"].(map[string]any)
	if done["status"] != "completed" || usage["total_tokens"].(float64) <= 0 || len(done["output"].([]any)) != 3 {
		t.Fatalf("completed: %v", done)
	}
	req := s.Requests("m")[0]
	if req.API != APIResponses || req.ToolResults() != 1 || req.LastText() != "page text" || req.Chat.Messages[0].Content != "be brief" ||
		req.Chat.ReasoningEffort != "low" || req.Chat.Messages[2].ToolCalls[0].ID != "c0" {
		t.Fatalf("recorded %+v", req.Chat)
	}
}

// TestResponsesEndpointErrors: a scripted 429 is the same error body and
// Retry-After through /v1/responses; a cut reply ends incomplete.
func TestResponsesEndpointErrors(t *testing.T) {
	t.Parallel()
	s := New(t)
	s.Then("m", RateLimited(2*time.Second), Truncated(3, Text("hello")))
	resp, err := http.Post(s.URL+"/responses", "application/json", strings.NewReader(`{"model":"m","input":"hi","stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	names, data := sseEvents(t, s, `{"model":"m","input":"hi","stream":true}`)
	last := data[len(data)-1]["response"].(map[string]any)
	if names[len(names)-1] != "response.incomplete" || last["incomplete_details"].(map[string]any)["reason"] != "max_output_tokens" {
		t.Fatalf("%v %v", names, last)
	}
}
