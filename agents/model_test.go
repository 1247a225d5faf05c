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

func testModel(s *modeltest.Server, clk Clock) *Model {
	return NewModel(ModelConfig{
		BaseURL: strings.TrimSuffix(s.URL, "/v1"), // normalisation puts it back
		APIKey:  "sk-secret",
		Models:  map[Role]string{RolePlanner: "planner", RoleExecutor: "executor"},
		Prices:  map[string]Price{"executor": {Prompt: 1, Completion: 4}},
		Clock:   clk,
	})
}

func userCall(role Role, text string) modelCall {
	return modelCall{Role: role, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: text}}}
}

func TestNormalizeBaseURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://localhost:11434":                                   "http://localhost:11434/v1",
		"http://localhost:11434/":                                  "http://localhost:11434/v1",
		"https://api.openai.com/v1/":                               "https://api.openai.com/v1",
		"https://openrouter.ai/api/v1":                             "https://openrouter.ai/api/v1",
		"https://generativelanguage.googleapis.com/v1beta/openai/": "https://generativelanguage.googleapis.com/v1beta/openai",
		"": "https://api.openai.com/v1",
	} {
		if got := NormalizeBaseURL(in); got != want {
			t.Errorf("NormalizeBaseURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCompleteAssemblesStreamedToolCalls(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("executor", modeltest.Think("the button is e12", modeltest.Calls(
		modeltest.CallOf("click", map[string]string{"ref": "e12"}),
		modeltest.CallOf("speak", map[string]string{"text": "clicking the add skill button now"}),
	)))
	m := testModel(s, wallClock())
	r, err := m.complete(context.Background(), userCall(RoleExecutor, "go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ToolCalls) != 2 || r.ToolCalls[0].Name != "click" || r.ToolCalls[0].Args != `{"ref":"e12"}` ||
		r.ToolCalls[1].Name != "speak" || !strings.Contains(r.ToolCalls[1].Args, "add skill") {
		t.Fatalf("tool calls = %+v", r.ToolCalls)
	}
	if r.ToolCalls[0].ID == "" || r.ToolCalls[0].ID == r.ToolCalls[1].ID {
		t.Fatalf("ids = %q %q", r.ToolCalls[0].ID, r.ToolCalls[1].ID)
	}
	if r.Content != "" || r.Thinking != "the button is e12" {
		t.Fatalf("content %q thinking %q", r.Content, r.Thinking)
	}
	if r.Usage.PromptTokens == 0 || r.Usage.Cost == 0 || r.Attempts != 1 {
		t.Fatalf("usage %+v attempts %d", r.Usage, r.Attempts)
	}
	want := (float64(r.Usage.PromptTokens)*1 + float64(r.Usage.CompletionTokens)*4) / 1e6
	if r.Usage.Cost != want {
		t.Fatalf("cost %v, want %v", r.Usage.Cost, want)
	}
	req := s.Requests("executor")[0]
	if !req.Chat.Stream || req.Chat.StreamOptions == nil || !req.Chat.StreamOptions.IncludeUsage {
		t.Fatal("request not streamed with usage")
	}
	if req.Header.Get("Authorization") != "Bearer sk-secret" {
		t.Fatal("API key not sent")
	}
}

// completeLater starts an executor's model call on m and returns what
// waits for its reply, so that the test drives the fake clock in between.
func completeLater(m *Model) func() (modelReply, error) {
	type result struct {
		r   modelReply
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := m.complete(context.Background(), userCall(RoleExecutor, "go"))
		done <- result{r, err}
	}()
	return func() (modelReply, error) {
		res := <-done
		return res.r, res.err
	}
}

func TestCompleteHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("executor", modeltest.RateLimited(3*time.Second), modeltest.Text("ok"))
	clk := newFakeClock()
	m := testModel(s, clk)
	reply := completeLater(m)
	p := clk.waitTimers(t, 1)
	if p[0] != 3*time.Second {
		t.Fatalf("waiting %v, want the server's Retry-After of 3s", p[0])
	}
	clk.Advance(3 * time.Second)
	r, err := reply()
	if err != nil {
		t.Fatal(err)
	}
	if r.Content != "ok" || r.Attempts != 2 {
		t.Fatalf("reply %q after %d attempts", r.Content, r.Attempts)
	}
}

func TestCompleteThree500sFailsClearly(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("executor", modeltest.ServerError(), modeltest.ServerError(), modeltest.ServerError())
	clk := newFakeClock()
	m := NewModel(ModelConfig{BaseURL: s.URL, Models: map[Role]string{RoleExecutor: "executor"}, MaxRetries: 2, Clock: clk})
	reply := completeLater(m)
	// Two back-offs, growing.
	first := clk.waitTimers(t, 1)[0]
	clk.Advance(first)
	second := clk.waitTimers(t, 1)[0]
	clk.Advance(second)
	if second <= first {
		t.Fatalf("back-off did not grow: %v then %v", first, second)
	}
	_, err := reply()
	if !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), "500") || !strings.Contains(err.Error(), "3 attempts") {
		t.Fatalf("err = %v", err)
	}
	if n := len(s.Requests("executor")); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
}

func TestCompleteCallTimeoutRetries(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("executor", modeltest.Slow(time.Minute, modeltest.Text("late")), modeltest.Text("ok"))
	m := NewModel(ModelConfig{BaseURL: s.URL, Models: map[Role]string{RoleExecutor: "executor"},
		CallTimeout: 100 * time.Millisecond, Backoff: time.Millisecond})
	r, err := m.complete(context.Background(), userCall(RoleExecutor, "go"))
	if err != nil || r.Content != "ok" || r.Attempts != 2 {
		t.Fatalf("%v %q %d", err, r.Content, r.Attempts)
	}
}

func TestCompleteCancelled(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("executor", modeltest.Slow(time.Minute, modeltest.Text("late")))
	m := testModel(s, wallClock())
	ctx, cancel := context.WithCancel(context.Background())
	arrived := s.Changed()
	go func() {
		<-arrived
		cancel()
	}()
	start := time.Now()
	_, err := m.complete(ctx, userCall(RoleExecutor, "go"))
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
}

func TestCompleteTruncated(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Then("executor", modeltest.Truncated(40, modeltest.Calls(modeltest.ToolCall{
		Name: "done", Args: `{"summary": "Skills added: Go, \"Kubernetes\", and more", "success": true}`,
	})))
	r, err := testModel(s, wallClock()).complete(context.Background(), userCall(RoleExecutor, "go"))
	if err != nil || !r.Truncated || len(r.ToolCalls) != 1 {
		t.Fatalf("%v %+v", err, r)
	}
	sum, _, ok := salvageDone(r.ToolCalls[0].Args)
	if !ok || sum != `Skills added: Go, "Kuberne` {
		t.Fatalf("salvaged %q %v from %q", sum, ok, r.ToolCalls[0].Args)
	}
}

func TestStripThink(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, vis, th string }{
		{"plain", "plain", ""},
		{"<think>a</think>b", "b", "a"},
		{"x<think>a</think>y<think>b</think>z", "xyz", "ab"},
		{"ok <think>unclosed", "ok", "unclosed"},
		{"hidden</think>shown", "shown", "hidden"},
	} {
		vis, th := stripThink(tc.in)
		if vis != tc.vis || th != tc.th {
			t.Errorf("stripThink(%q) = %q, %q", tc.in, vis, th)
		}
	}
}

func TestDecodeArgsExplains(t *testing.T) {
	t.Parallel()
	var v struct {
		Ref  string `json:"ref"`
		Text string `json:"text"`
	}
	for raw, want := range map[string]string{
		`{"ref": "e1"`:            "cut off",
		`{"ref": e1}`:             "not valid JSON",
		`{"ref": 12}`:             `field "ref" must be a string`,
		`{"ref": "e1", "x": 1}`:   `unknown field "x"`,
		`{"ref":"e1"}{"ref":"2"}`: "more than one",
	} {
		err := decodeArgs("type", raw, &v)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("decodeArgs(%q) = %v, want mention of %q", raw, err, want)
		}
	}
	if err := decodeArgs("type", `{"ref":"e1","text":"hi"}`, &v); err != nil || v.Ref != "e1" {
		t.Fatal(err)
	}
	if err := decodeArgs("back", ``, &struct{}{}); err != nil {
		t.Fatal(err)
	}
}

func TestSalvageDone(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`{"summary": "all good", "success": tr`: "all good",
		`{"summary":"line1\nline2 \u00e9t\u00`:  "line1\nline2 ét",
		`{"success": false, "summary": "half`:   "half",
		`{"summary": "dangling \`:               "dangling ",
	} {
		got, _, ok := salvageDone(raw)
		if !ok || got != want {
			t.Errorf("salvageDone(%q) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	if _, _, ok := salvageDone(`{"succ`); ok {
		t.Error("salvaged a summary that never started")
	}
}
