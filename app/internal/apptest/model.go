package apptest

import (
	"regexp"
	"strings"
	"time"

	"vroom/internal/modeltest"
)

// Done is the done tool call with summary and success.
func Done(summary string, success bool) modeltest.Reply {
	return modeltest.Call("done", map[string]any{"summary": summary, "success": success})
}

// Call is a call of the tool name with arguments as key, value pairs.
func Call(name string, kv ...any) modeltest.Reply {
	args := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		args[kv[i].(string)] = kv[i+1]
	}
	return modeltest.Call(name, args)
}

// calls lists the tool calls the agent has made so far, one "name args" a
// line.
func Calls(r *modeltest.Request) string {
	var b strings.Builder
	for _, m := range r.Chat.Messages {
		for _, tc := range m.ToolCalls {
			b.WriteString(tc.Function.Name + " " + tc.Function.Arguments + "\n")
		}
	}
	return b.String()
}

// ScriptBuyer scripts a run whose one executor clicks the shop fixture's
// "Place order" and then reports honestly whether the click was refused.
func ScriptBuyer(srv *modeltest.Server, s *Site) {
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "buy the mug in the cart", "url": s.URL + "/shop.html"}))
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		switch {
		case r.ToolResults() == 0:
			return Call("click", "ref", modeltest.Ref(r.Text(), "button", "Place order"))
		case strings.HasPrefix(r.LastText(), "refused"):
			return Done("I did not place the order: the user refused it", false)
		}
		return Done("order placed", true)
	}})
}

// QuoteRE finds the quote the quote desk fixture shows.
var QuoteRE = regexp.MustCompile(`Your quote is (\d+)`)

// QuoteExecutor clicks "Get quote", reads the page extra times (to be
// slower), reads the quote and reports it. Every reply takes delay, as a
// real model's does.
func QuoteExecutor(match modeltest.Matcher, delay time.Duration, extraReads int) modeltest.Step {
	return modeltest.Step{Times: -1, Match: match, Func: func(r *modeltest.Request) modeltest.Reply {
		text := r.Text()
		n := r.ToolResults()
		var rep modeltest.Reply
		switch {
		case n == 0:
			rep = Call("click", "ref", modeltest.Ref(text, "button", "Get quote"))
		case n < 1+extraReads || !QuoteRE.MatchString(r.LastText()):
			rep = Call("read_page")
		default:
			rep = Done("quote "+QuoteRE.FindStringSubmatch(r.LastText())[1], true)
		}
		return modeltest.Slow(delay, rep)
	}}
}
