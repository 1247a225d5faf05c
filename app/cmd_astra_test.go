package app

import (
	"bytes"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// TestRunAstraCLI: `vroom run --model gpt-6-astra --planner-model
// gpt-6-astra` — a model go-openai refuses tools to over Chat Completions —
// runs to the task's end as a process, every call through the Responses
// API with the efforts given by flag.
func TestRunAstraCLI(t *testing.T) {
	needBrowser(t)
	t.Parallel()
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	// One model name for both roles: the planner is the one offered spawn.
	srv.SetRoleOf(func(r *openai.ChatCompletionRequest) string {
		for _, tool := range r.Tools {
			if tool.Function != nil && tool.Function.Name == "spawn" {
				return "planner"
			}
		}
		return "executor"
	})
	srv.Script("planner", apptest.PlannerScript(map[string]any{"task": "get a quote", "url": s.URL + "/quote.html"}))
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		n := r.ToolResults()
		if n == 0 {
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Get quote"))
		}
		if m := apptest.QuoteRE.FindStringSubmatch(r.LastText()); m != nil {
			return apptest.Done("quote "+m[1], true)
		}
		if n < 10 {
			return apptest.Call("read_page")
		}
		return apptest.Done("no quote", false)
	}})
	dir := t.TempDir()
	cmd := vroomCmd(dir, "sk-test-astra", nil, "run", "--json", "--base-url", srv.URL, "--model", openai.GPT6Astra, "--planner-model", openai.GPT6Astra,
		"--planner-effort", "high", "--effort", "low", "--max-agents", "1", "get me a quote")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("vroom run: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), `"state":"done"`) && !strings.Contains(out.String(), `"success":true`) {
		t.Fatalf("no successful end in\n%s", out.String())
	}
	efforts := map[string]string{"planner": "high", "executor": "low"}
	for _, r := range srv.Requests("") {
		if r.API != modeltest.APIResponses || r.Chat.Model != openai.GPT6Astra || r.Chat.ReasoningEffort != efforts[r.Role] {
			t.Errorf("%s request through %s, model %s, effort %q", r.Role, r.API, r.Chat.Model, r.Chat.ReasoningEffort)
		}
	}
	if len(srv.Requests("planner")) < 2 || len(srv.Requests("executor")) < 2 || len(srv.Unmatched()) > 0 {
		t.Fatalf("%d planner, %d executor, %d unmatched requests", len(srv.Requests("planner")), len(srv.Requests("executor")), len(srv.Unmatched()))
	}
}
