package agents

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"vroom/internal/modeltest"
)

// Whole runs through the Responses API, against the scripted server.

// gpt6Run is a test run whose models are today's OpenAI names, spoken to
// as auto picks (the Responses API); the server tells the roles apart by
// model name.
func gpt6Run(t *testing.T, clk Clock) *testRun {
	tr := newTestRun(t, func(c *Config) {
		c.Model = NewModel(ModelConfig{BaseURL: c.Model.cfg.BaseURL, APIKey: "sk-test-key", API: APIAuto,
			Models:  map[Role]string{RolePlanner: openai.GPT6Astra, RoleExecutor: openai.GPT6Luna, RoleVision: openai.GPT6Sol},
			Efforts: map[Role]string{RolePlanner: "high", RoleExecutor: "low"},
			Prices:  map[string]Price{openai.GPT6Luna: {Prompt: 1, Completion: 4}},
			Clock:   clk, Backoff: time.Millisecond, KeyHint: "set it in Settings"})
	})
	names := map[string]string{openai.GPT6Astra: "planner", openai.GPT6Luna: "executor", openai.GPT6Sol: "vision"}
	tr.srv.SetRoleOf(func(r *openai.ChatCompletionRequest) string { return names[r.Model] })
	return tr
}

// TestResponsesScenario: a planner on gpt-6-astra spawns an executor on
// gpt-6-luna, which clicks, types into two fields in one turn (calls split
// across many events, interleaved), looks at a screenshot through the
// vision model and finishes; a 429 and a 500 on the way are waited out.
// Every request went to /v1/responses with its role's effort, and the
// run's usage is the sum of what response.completed reported.
func TestResponsesScenario(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	tr := gpt6Run(t, clk)
	tr.tabs.page = func(ft *fakeTab) {
		ft.addControl(&fakeControl{ref: "e1", role: "button", name: "Add skill", click: func(t *fakeTab) string {
			t.controls = append(t.controls, &fakeControl{ref: "e2", role: "textbox", name: "Skill"}, &fakeControl{ref: "e3", role: "textbox", name: "Level"})
			return `new: e2 textbox "Skill", e3 textbox "Level"`
		}})
	}
	used := &openai.Usage{PromptTokens: 100, CompletionTokens: 10}
	withUsage := func(r modeltest.Reply) modeltest.Reply { r.Usage, r.ChunkSize, r.Interleave = used, 2, true; return r }
	tr.srv.Then("planner", withUsage(spawn("add the skill Go", "url", "http://linked.test/profile")),
		modeltest.RateLimited(3*time.Second), withUsage(modeltest.Call("wait", map[string]any{"mode": "all"})), withUsage(done("added Go", true)))
	tr.srv.Then("executor", withUsage(modeltest.Call("click", map[string]string{"ref": "e1"})),
		modeltest.ServerError(),
		withUsage(modeltest.Calls(modeltest.CallOf("type", map[string]any{"ref": "e2", "text": "Go"}), modeltest.CallOf("type", map[string]any{"ref": "e3", "text": "expert"}))),
		withUsage(modeltest.Call("screenshot", map[string]any{})))
	tr.srv.Then("vision", withUsage(done("Go added", true)))
	go func() { // the 429's Retry-After and the 500's back-off, in whichever order
		for i := 0; i < 2; i++ {
			clk.Advance(clk.waitTimers(t, 1)[0])
		}
	}()
	res := tr.execute(t, "add Go to my skills")
	if !res.Success || res.Summary != "added Go" {
		t.Fatalf("%+v", res)
	}
	var typed []string
	for _, ft := range tr.tabs.tabs {
		for _, a := range ft.actions() {
			if a.Kind == ActType {
				typed = append(typed, a.Text)
			}
		}
	}
	if strings.Join(typed, ",") != "Go,expert" {
		t.Fatalf("typed %q", typed)
	}
	efforts := map[string]string{"planner": "high", "executor": "low", "vision": "low"}
	for _, r := range tr.srv.Requests("") {
		if r.API != modeltest.APIResponses || r.Chat.ReasoningEffort != efforts[r.Role] {
			t.Errorf("%s request through %s with effort %q", r.Role, r.API, r.Chat.ReasoningEffort)
		}
	}
	v := tr.srv.Requests("vision")[0]
	if !v.HasInputItem("message", `"type":"input_image"`) || v.ToolResults() != 4 {
		t.Fatalf("vision request: %d results: %s", v.ToolResults(), clip(string(v.Body), 2000))
	}
	// Seven answered calls of 100+10 tokens; only the executor's three
	// (gpt-6-luna) have a price.
	if res.Usage.PromptTokens != 700 || res.Usage.CompletionTokens != 70 || math.Abs(res.Usage.Cost-3*(100+40)/1e6) > 1e-12 {
		t.Fatalf("usage %+v", res.Usage)
	}
}

// TestResponsesKeyRefusedEndsRun: a 401 through the Responses API ends
// the whole run as it does through Chat Completions.
func TestResponsesKeyRefusedEndsRun(t *testing.T) {
	t.Parallel()
	tr := gpt6Run(t, wallClock())
	tr.srv.Then("planner", spawn("refused"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("never", true))
	tr.srv.Then("executor", modeltest.Reply{Status: http.StatusUnauthorized})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := tr.Execute(ctx, "one")
	if !errors.Is(err, ErrKeyRefused) || res.Success || !strings.Contains(res.Summary, "set it in Settings") || !strings.Contains(res.Summary, "401") {
		t.Fatalf("err %v, result %+v", err, res)
	}
	if n := len(tr.srv.Requests("executor")); n != 1 {
		t.Fatalf("%d executor requests: a 401 is not retried", n)
	}
}
