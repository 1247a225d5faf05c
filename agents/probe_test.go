package agents

import (
	"context"
	"errors"
	"testing"

	"vroom/internal/modeltest"
)

// TestProbe: a tool call through either API passes, with the API named;
// prose or another tool is ErrNoToolCall; the vision probe carries an
// image.
func TestProbe(t *testing.T) {
	t.Parallel()
	for _, api := range []API{APIChat, APIResponses} {
		s := modeltest.New(t)
		s.Then("executor", modeltest.Call("report", map[string]string{"word": "ready"}), modeltest.Text("ready!"), modeltest.Call("click", map[string]string{}))
		s.Then("vision", modeltest.Call("report", map[string]string{"word": "ready"}))
		m := NewModel(ModelConfig{BaseURL: s.URL, API: api, MaxRetries: -1,
			Models: map[Role]string{RoleExecutor: "executor", RoleVision: "vision"}})
		res, err := m.Probe(context.Background(), RoleExecutor, false)
		if err != nil || res.API != api || res.Model != "executor" || res.Reply != `{"word":"ready"}` {
			t.Fatalf("%s: %+v %v", api, res, err)
		}
		for i := 0; i < 2; i++ {
			if _, err := m.Probe(context.Background(), RoleExecutor, false); !errors.Is(err, ErrNoToolCall) {
				t.Fatalf("%s: %v", api, err)
			}
		}
		if _, err := m.Probe(context.Background(), RoleVision, true); err != nil {
			t.Fatal(err)
		}
		last, _ := s.Requests("vision")[0].LastMessage()
		if len(last.MultiContent) != 2 || last.MultiContent[1].ImageURL == nil {
			t.Fatalf("%s: no image in %+v", api, last)
		}
	}
}
