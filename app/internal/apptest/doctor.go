package apptest

import (
	"testing"

	"vroom/internal/modeltest"
)

// report is the tool call a doctor probe asks for.
var probeReply = modeltest.Call("report", map[string]string{"word": "ready"})

// DoctorModel answers every probe: the planner on gpt-6-astra (the
// Responses API), the executor, and the vision model, which is the
// executor's, on "executor" (Chat Completions).
func DoctorModel(t *testing.T) *modeltest.Server {
	srv := modeltest.New(t)
	srv.Script("gpt-6-astra", modeltest.Step{Times: -1, Reply: probeReply})
	srv.Script("executor", modeltest.Step{Times: -1, Reply: probeReply})
	return srv
}
