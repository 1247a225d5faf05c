package apptest

import (
	"time"

	"vroom/internal/modeltest"
)

// ScriptQuote scripts a careful run on the quote desk: the planner sends
// one agent, which clicks "Get quote", reads until the quote shows and
// reports it.
func ScriptQuote(srv *modeltest.Server, s *Site, delay time.Duration) {
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "get a quote from the desk", "url": s.URL + "/quote.html?name=North"}))
	srv.Script("executor", QuoteExecutor(modeltest.Any(), delay, 1))
}
