package agents

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"
)

// The model-facing tools are a public contract (TOOLS.md): users' prompts
// and evaluations depend on their names and arguments. Change them only
// with the reason written down there.

func tool(name, desc, params string) openai.Tool {
	return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: name, Description: desc, Parameters: json.RawMessage(params),
	}}
}

const (
	speakParams = `{"type":"object","properties":{"text":{"type":"string","description":"What to say, one or two short sentences."}},"required":["text"],"additionalProperties":false}`
	askParams   = `{"type":"object","properties":{"question":{"type":"string"},"options":{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":6,"description":"2 to 6 short answers the person can pick."}},"required":["question","options"],"additionalProperties":false}`
	doneParams  = `{"type":"object","properties":{"summary":{"type":"string","description":"The complete result: the deliverable itself, not an introduction to it."},"success":{"type":"boolean"}},"required":["summary","success"],"additionalProperties":false}`
)

var (
	speakDesc = "Say something to the room (the person and the other agents). Succeeds only when the floor is free; otherwise you are told who is speaking and for how long."
	askDesc   = "Ask the person a question with 2 to 6 answer options, and wait for the answer."
	doneDesc  = "Finish: report the complete result and whether the task succeeded. Be honest: success is false if the task was not achieved."
)

// PlannerTools returns the planner's tools.
func PlannerTools() []openai.Tool {
	return []openai.Tool{
		tool("spawn", "Start an executor agent on a sub-task in its own tab. Returns {pid, tab}. Give tab to work in an existing tab (keeping its login), or url to open a new tab there.",
			`{"type":"object","properties":{"task":{"type":"string","description":"A complete, self-contained sub-task."},"tab":{"type":"string","description":"Id of an existing tab to work in."},"url":{"type":"string","description":"Where a new tab opens."}},"required":["task"],"additionalProperties":false}`),
		tool("wait", "Wait for executors to finish, like waitpid. mode any returns when one finishes; all when every one has. Returns each finished executor's summary, success, tab and steps.",
			`{"type":"object","properties":{"pids":{"type":"array","items":{"type":"integer"},"description":"Which executors; default all you spawned that have not been reported."},"mode":{"type":"string","enum":["any","all"]},"timeout_s":{"type":"number","description":"Give up waiting after this many seconds."}},"required":["mode"],"additionalProperties":false}`),
		tool("kill", "Stop an executor.",
			`{"type":"object","properties":{"pid":{"type":"integer"}},"required":["pid"],"additionalProperties":false}`),
		tool("speak", speakDesc, speakParams),
		tool("ask_user", askDesc, askParams),
		tool("done", doneDesc, doneParams),
	}
}

// ExecutorTools returns an executor's tools.
func ExecutorTools() []openai.Tool {
	ref := `"ref":{"type":"string","description":"A control's ref from the latest observation, such as e17."}`
	return []openai.Tool{
		tool("click", "Click a control.", `{"type":"object","properties":{`+ref+`},"required":["ref"],"additionalProperties":false}`),
		tool("type", "Type text into a field, replacing its value; submit presses Enter after.",
			`{"type":"object","properties":{`+ref+`,"text":{"type":"string"},"submit":{"type":"boolean"}},"required":["ref","text"],"additionalProperties":false}`),
		tool("select", "Choose an option of a select element by its label.",
			`{"type":"object","properties":{`+ref+`,"option":{"type":"string"}},"required":["ref","option"],"additionalProperties":false}`),
		tool("press", "Press a key or chord: Enter, Escape, Tab, Control+A.",
			`{"type":"object","properties":{"key":{"type":"string"}},"required":["key"],"additionalProperties":false}`),
		tool("scroll", "Scroll a control into view (ref), or the page in a direction.",
			`{"type":"object","properties":{`+ref+`,"direction":{"type":"string","enum":["up","down","left","right"]},"amount":{"type":"number","description":"CSS pixels; default most of a screen."}},"additionalProperties":false}`),
		tool("navigate", "Open a URL in your tab.",
			`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"],"additionalProperties":false}`),
		tool("back", "Go back in your tab's history.", `{"type":"object","properties":{},"additionalProperties":false}`),
		tool("screenshot", "See the page as an image, for canvas apps and anything that only means something as pixels. Coordinates for click_at are in its pixels.",
			`{"type":"object","properties":{},"additionalProperties":false}`),
		tool("click_at", "Click at a point of the latest screenshot.",
			`{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"],"additionalProperties":false}`),
		tool("type_focused", "Type text into whatever has focus (after click_at on a canvas cell, for instance).",
			`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`),
		tool("read_page", "Read the page's text content.", `{"type":"object","properties":{},"additionalProperties":false}`),
		tool("observe", "Look at the page again: a fresh list of controls with refs. With query, roles or within it searches the whole page, off-screen included (in view first): use it when a control you need is not in what you were shown. Refs it returns work with click and type, which scroll to them.",
			`{"type":"object","properties":{"query":{"type":"string","description":"Keep controls whose name, value or nearby text contains this."},"roles":{"type":"string","description":"Comma-separated roles to keep: button,link,option,textbox,combobox..."},"within":{"type":"string","description":"A ref (a dialog, a list): only controls inside it."},"limit":{"type":"integer","description":"At most this many controls (default 40)."}},"additionalProperties":false}`),
		tool("wait", "Wait for what the page is still doing: until its text contains text, or no longer contains gone, or the URL contains url, or a control matching query appears; with none of these, until the page is idle. Returns what changed since your last look, or says it timed out.",
			`{"type":"object","properties":{"text":{"type":"string"},"gone":{"type":"string"},"url":{"type":"string"},"query":{"type":"string"},"timeout_s":{"type":"number","description":"Seconds; default 10, at most 30."}},"additionalProperties":false}`),
		tool("speak", speakDesc, speakParams),
		tool("ask_user", askDesc, askParams),
		tool("done", doneDesc, doneParams),
	}
}

// Argument types of the tools.
type (
	spawnArgs struct {
		Task string `json:"task"`
		Tab  string `json:"tab,omitempty"`
		URL  string `json:"url,omitempty"`
	}
	waitArgs struct {
		PIDs     []int   `json:"pids,omitempty"`
		Mode     string  `json:"mode"`
		TimeoutS float64 `json:"timeout_s,omitempty"`
	}
	killArgs struct {
		PID int `json:"pid"`
	}
	speakArgs struct {
		Text string `json:"text"`
	}
	askArgs struct {
		Question string   `json:"question"`
		Options  []string `json:"options"`
	}
	doneArgs struct {
		Summary string `json:"summary"`
		Success bool   `json:"success"`
	}
	refArgs struct {
		Ref string `json:"ref"`
	}
	typeArgs struct {
		Ref    string `json:"ref"`
		Text   string `json:"text"`
		Submit bool   `json:"submit,omitempty"`
	}
	selectArgs struct {
		Ref    string `json:"ref"`
		Option string `json:"option"`
	}
	pressArgs struct {
		Key string `json:"key"`
	}
	scrollArgs struct {
		Ref       string  `json:"ref,omitempty"`
		Direction string  `json:"direction,omitempty"`
		Amount    float64 `json:"amount,omitempty"`
	}
	navigateArgs struct {
		URL string `json:"url"`
	}
	pointArgs struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	}
	textArgs struct {
		Text string `json:"text"`
	}
	observeArgs struct {
		Query  string `json:"query,omitempty"`
		Roles  string `json:"roles,omitempty" args:"list"`
		Within string `json:"within,omitempty"`
		Limit  int    `json:"limit,omitempty"`
	}
	pageWaitArgs struct {
		Text     string  `json:"text,omitempty"`
		Gone     string  `json:"gone,omitempty"`
		URL      string  `json:"url,omitempty"`
		Query    string  `json:"query,omitempty"`
		TimeoutS float64 `json:"timeout_s,omitempty"`
	}
	noArgs struct{}
)
