package agents

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"vroom/internal/modeltest"
)

// responsesModel is a client of s that speaks the Responses API to every
// role, with an effort per role.
func responsesModel(s *modeltest.Server, clk Clock, retries int) *Model {
	return NewModel(ModelConfig{
		BaseURL: s.URL, APIKey: "sk-secret", API: APIResponses,
		Models:  map[Role]string{RolePlanner: "planner", RoleExecutor: "executor", RoleVision: "vision"},
		Efforts: map[Role]string{RolePlanner: "high", RoleExecutor: "low"},
		Prices:  map[string]Price{"executor": {Prompt: 1, Completion: 4}},
		Clock:   clk, MaxRetries: retries, Backoff: 10 * time.Millisecond,
	})
}

func TestResolveAPI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode  API
		model string
		want  API
	}{
		{APIAuto, openai.GPT6Astra, APIResponses},
		{APIAuto, openai.GPT6Dot1Sol, APIResponses},
		{APIAuto, openai.GPT6Sol, APIResponses},
		{APIAuto, openai.GPT6Luna, APIResponses},
		{"", "gpt-4.1-mini", APIChat},
		{APIAuto, "llama3.1", APIChat},
		{APIChat, openai.GPT6Astra, APIChat},
		{APIResponses, "llama3.1", APIResponses},
	} {
		if got := ResolveAPI(tc.mode, tc.model); got != tc.want {
			t.Errorf("ResolveAPI(%q, %q) = %q, want %q", tc.mode, tc.model, got, tc.want)
		}
	}
	if _, err := ParseAPI("soap"); !errors.Is(err, ErrBadAPI) {
		t.Errorf("ParseAPI(soap) = %v", err)
	}
	if _, err := ParseEffort("extreme"); !errors.Is(err, ErrBadEffort) {
		t.Errorf("ParseEffort(extreme) = %v", err)
	}
}

// TestResponsesStreamedToolCalls: function_call items whose arguments
// arrive in 3-byte deltas, sequential and interleaved, assemble whole and
// in order; usage and cost come from response.completed; the effort and
// the tools reach the server in the Responses form.
func TestResponsesStreamedToolCalls(t *testing.T) {
	t.Parallel()
	for _, interleave := range []bool{false, true} {
		s := modeltest.New(t)
		reply := modeltest.Think("e12 is the button", modeltest.Calls(
			modeltest.CallOf("click", map[string]string{"ref": "e12"}),
			modeltest.CallOf("speak", map[string]string{"text": "clicking the add skill button now"}),
		))
		reply.ChunkSize, reply.Interleave = 3, interleave
		reply.Usage = &openai.Usage{PromptTokens: 1000, CompletionTokens: 500}
		s.Then("executor", reply)
		m := responsesModel(s, wallClock(), 0)
		c := userCall(RoleExecutor, "go")
		c.Tools = ExecutorTools()
		r, err := m.complete(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.ToolCalls) != 2 || r.ToolCalls[0].Name != "click" || r.ToolCalls[0].Args != `{"ref":"e12"}` ||
			r.ToolCalls[1].Name != "speak" || r.ToolCalls[1].Args != `{"text":"clicking the add skill button now"}` ||
			!strings.HasPrefix(r.ToolCalls[0].ID, "call_") || r.ToolCalls[0].ID == r.ToolCalls[1].ID {
			t.Fatalf("interleave %v: tool calls %+v", interleave, r.ToolCalls)
		}
		if r.Thinking != "e12 is the button" || r.Content != "" {
			t.Fatalf("content %q thinking %q", r.Content, r.Thinking)
		}
		if r.Usage.PromptTokens != 1000 || r.Usage.CompletionTokens != 500 || r.Usage.Cost != 0.003 {
			t.Fatalf("usage %+v", r.Usage)
		}
		req := s.Requests("executor")[0]
		if req.API != modeltest.APIResponses || req.Chat.ReasoningEffort != "low" || len(req.Chat.Tools) != len(ExecutorTools()) ||
			!strings.Contains(string(req.Body), `"store":false`) || req.Header.Get("Authorization") != "Bearer sk-secret" {
			t.Fatalf("request %s %q %d tools: %s", req.API, req.Chat.ReasoningEffort, len(req.Chat.Tools), req.Body)
		}
	}
}

// TestResponsesHistory: the agent's history goes out as Responses items —
// the assistant's calls as function_call, tool results as
// function_call_output, an image as input_image — and the server's
// helpers read it as they read a chat request.
func TestResponsesHistory(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("vision", modeltest.Text("I see a sheet"))
	m := responsesModel(s, wallClock(), 0)
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "you drive a tab"},
		{Role: openai.ChatMessageRoleUser, Content: "fill B5"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "call_1", Type: "function",
			Function: openai.FunctionCall{Name: "screenshot", Arguments: "{}"}}}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "call_1", Content: "screenshot taken"},
		{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{
			{Type: openai.ChatMessagePartTypeText, Text: "the screenshot:"},
			{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "data:image/png;base64,AAAA", Detail: openai.ImageURLDetailHigh}},
		}},
	}
	r, err := m.complete(context.Background(), modelCall{Role: RoleVision, Messages: msgs})
	if err != nil || r.Content != "I see a sheet" {
		t.Fatalf("%v %+v", err, r)
	}
	req := s.Requests("vision")[0]
	if req.ToolResults() != 1 || req.LastText() != "the screenshot:" || !strings.Contains(req.Text(), "screenshot taken") {
		t.Fatalf("helpers: %d results, last %q, text %q", req.ToolResults(), req.LastText(), req.Text())
	}
	if !req.HasInputItem("function_call", `"call_id":"call_1"`) || !req.HasInputItem("function_call_output", "screenshot taken") ||
		!req.HasInputItem("message", `"type":"input_image"`) {
		t.Fatalf("input items: %s", req.Body)
	}
	last, _ := req.LastMessage()
	if len(last.MultiContent) != 2 || last.MultiContent[1].ImageURL.URL != "data:image/png;base64,AAAA" {
		t.Fatalf("image: %+v", last)
	}
	if req.Chat.ReasoningEffort != "low" { // the vision role takes the executor's effort
		t.Fatalf("vision effort %q", req.Chat.ReasoningEffort)
	}
}

// TestResponsesRetries: a 429's Retry-After is honoured and a 500 retried
// with back-off, through the Responses API as through Chat Completions.
func TestResponsesRetries(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("executor", modeltest.RateLimited(4*time.Second), modeltest.ServerError(), modeltest.Text("ok"))
	clk := newFakeClock()
	m := responsesModel(s, clk, 3)
	reply := completeLater(m)
	if p := clk.waitTimers(t, 1); p[0] != 4*time.Second {
		t.Fatalf("waiting %v, want the server's Retry-After of 4s", p[0])
	}
	clk.Advance(4 * time.Second)
	clk.Advance(clk.waitTimers(t, 1)[0])
	r, err := reply()
	if err != nil {
		t.Fatal(err)
	}
	if r.Content != "ok" || r.Attempts != 3 {
		t.Fatalf("reply %q after %d attempts", r.Content, r.Attempts)
	}
}

// TestResponsesFaults: a refused key and a dead server are the same
// ModelFaults through the Responses API; a 400 is an ordinary failure.
func TestResponsesFaults(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("executor", modeltest.Reply{Status: 401}, modeltest.Reply{Status: 400})
	m := responsesModel(s, wallClock(), 3)
	_, err := m.complete(context.Background(), userCall(RoleExecutor, "go"))
	var f *ModelFault
	if !errors.As(err, &f) || !errors.Is(err, ErrKeyRefused) || f.Status != 401 || len(s.Requests("")) != 1 {
		t.Fatalf("401: %v after %d requests", err, len(s.Requests("")))
	}
	_, err = m.complete(context.Background(), userCall(RoleExecutor, "go"))
	if !errors.Is(err, ErrModel) || errors.As(err, &f) || !strings.Contains(err.Error(), "400") {
		t.Fatalf("400: %v", err)
	}
	dead := modeltest.New(t)
	url := dead.URL
	dead.Close()
	m = NewModel(ModelConfig{BaseURL: url, API: APIResponses, Models: map[Role]string{RoleExecutor: "x"}, MaxRetries: 1, Backoff: time.Millisecond})
	_, err = m.complete(context.Background(), userCall(RoleExecutor, "go"))
	if !errors.Is(err, ErrModelUnreachable) || !strings.Contains(err.Error(), url) {
		t.Fatalf("dead server: %v", err)
	}
}

// TestResponsesTruncated: response.incomplete at the token limit is a
// truncated reply, as finish_reason "length" is.
func TestResponsesTruncated(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("executor", modeltest.Truncated(30, modeltest.Call("done", map[string]any{"summary": "Skills added: Go and more", "success": true})))
	r, err := responsesModel(s, wallClock(), 0).complete(context.Background(), userCall(RoleExecutor, "go"))
	if err != nil || !r.Truncated || len(r.ToolCalls) != 1 || len(r.ToolCalls[0].Args) != 30 {
		t.Fatalf("%v %+v", err, r)
	}
}

// TestChatRefusedForGPT6Says: forcing Chat Completions on a model
// go-openai refuses tools to there says what to set.
func TestChatRefusedForGPT6Says(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	m := NewModel(ModelConfig{BaseURL: s.URL, API: APIChat, Models: map[Role]string{RoleExecutor: openai.GPT6Astra}})
	c := userCall(RoleExecutor, "go")
	c.Tools = ExecutorTools()
	_, err := m.complete(context.Background(), c)
	if !errors.Is(err, openai.ErrReasoningToolsRequireResponses) || !strings.Contains(err.Error(), "auto or responses") || len(s.Requests("")) != 0 {
		t.Fatalf("%v", err)
	}
}
