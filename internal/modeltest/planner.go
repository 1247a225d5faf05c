package modeltest

import (
	"regexp"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// PlannerScript is the planner most tests need: it spawns one executor per
// argument list in spawns, in order, then waits for all of them and
// finishes, whatever interrupts its waits (a person's correction, a lost
// tab). Its done summary is "all finished: " and the executors' summaries
// joined by "; ", and it reports success unless a wait result carried an
// agent that failed ("success":false). It speaks Vroom's planner tools:
// spawn, wait with mode "all", done.
func PlannerScript(spawns ...map[string]any) Step {
	return Step{Times: -1, Func: func(r *Request) Reply {
		if n := spawnCalls(r); n < len(spawns) {
			return Call("spawn", spawns[n])
		}
		if m, ok := r.LastMessage(); ok && m.Role == openai.ChatMessageRoleTool && strings.Contains(MessageText(m), `"running":[]`) {
			text := r.Text()
			return Call("done", map[string]any{
				"summary": "all finished: " + strings.Join(Summaries(text), "; "),
				"success": !strings.Contains(text, `"success":false`),
			})
		}
		return Call("wait", map[string]any{"mode": "all"})
	}}
}

// PlannerTasks is PlannerScript with a bare task per executor.
func PlannerTasks(tasks ...string) Step {
	spawns := make([]map[string]any, len(tasks))
	for i, t := range tasks {
		spawns[i] = map[string]any{"task": t}
	}
	return PlannerScript(spawns...)
}

// spawnCalls counts the spawn calls the planner has made so far: the index
// of the next one. Counting calls rather than tool results keeps the
// count right when a result that is not a spawn's comes in between.
func spawnCalls(r *Request) int {
	n := 0
	for _, m := range r.Chat.Messages {
		for _, tc := range m.ToolCalls {
			if tc.Function.Name == "spawn" {
				n++
			}
		}
	}
	return n
}

var summaryRE = regexp.MustCompile(`"summary":"([^"]*)"`)

// Summaries lists the agents' summaries in text (a request's Text): every
// "summary" field of the wait results the planner was given, in order.
func Summaries(text string) []string {
	var out []string
	for _, m := range summaryRE.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}
