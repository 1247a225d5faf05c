package agents

import (
	"errors"

	"github.com/google/jsonschema-go/jsonschema"
)

// The tools' definitions and their argument types. Descriptions on
// arguments are given where the name alone does not say enough: every
// character here is sent with every model call.

const (
	speakDesc = "Say something to the room (the person and the other agents). Succeeds only when the floor is free; otherwise you are told who is speaking and for how long."
	askDesc   = "Ask the person a question with 2 to 6 answer options, and wait for the answer."
	doneDesc  = "Finish: report the complete result and whether the task succeeded. Be honest: success is false if the task was not achieved."
)

// Argument types of the tools.
type (
	spawnArgs struct {
		Task string `json:"task" jsonschema:"A complete, self-contained sub-task."`
		Tab  string `json:"tab,omitempty" jsonschema:"Id of an existing tab to work in."`
		URL  string `json:"url,omitempty" jsonschema:"Where a new tab opens."`
	}
	waitArgs struct {
		PIDs     []int   `json:"pids,omitempty" jsonschema:"Which executors; default all you spawned that have not been reported."`
		Mode     string  `json:"mode"`
		TimeoutS float64 `json:"timeout_s,omitempty" jsonschema:"Give up waiting after this many seconds."`
	}
	killArgs struct {
		PID int `json:"pid"`
	}
	speakArgs struct {
		Text string `json:"text" jsonschema:"What to say, one or two short sentences."`
	}
	askArgs struct {
		Question string   `json:"question"`
		Options  []string `json:"options" jsonschema:"2 to 6 short answers the person can pick."`
	}
	doneArgs struct {
		Summary string `json:"summary" jsonschema:"The complete result: the deliverable itself, not an introduction to it."`
		Success bool   `json:"success"`
	}
	refArgs struct {
		Ref string `json:"ref" jsonschema:"A control's ref from the latest observation, such as e17."`
	}
	typeArgs struct {
		Ref    string `json:"ref" jsonschema:"A control's ref from the latest observation, such as e17."`
		Text   string `json:"text"`
		Submit bool   `json:"submit,omitempty"`
	}
	selectArgs struct {
		Ref    string `json:"ref" jsonschema:"A control's ref from the latest observation, such as e17."`
		Option string `json:"option"`
	}
	pressArgs struct {
		Key string `json:"key"`
	}
	scrollArgs struct {
		Ref       string  `json:"ref,omitempty" jsonschema:"A control's ref from the latest observation, such as e17."`
		Direction string  `json:"direction,omitempty"`
		Amount    float64 `json:"amount,omitempty" jsonschema:"CSS pixels; default most of a screen."`
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
		Query  string   `json:"query,omitempty" jsonschema:"Keep controls whose name, value or nearby text contains this; text passages too."`
		Roles  []string `json:"roles,omitempty" args:"list" jsonschema:"Roles to keep: button, link, option, textbox, combobox..."`
		Within string   `json:"within,omitempty" jsonschema:"A ref (a dialog, a list): only controls inside it."`
		Limit  int      `json:"limit,omitempty" jsonschema:"At most this many controls (default 40)."`
	}
	pageWaitArgs struct {
		Text      string  `json:"text,omitempty"`
		Gone      string  `json:"gone,omitempty"`
		URL       string  `json:"url,omitempty"`
		Query     string  `json:"query,omitempty"`
		Heard     string  `json:"heard,omitempty" room:"" jsonschema:"Until someone else in the room has said this (one said before counts)."`
		FloorFree bool    `json:"floor_free,omitempty" room:"" jsonschema:"Until nobody holds the floor; with heard, until it was said and its speaker has finished: your turn to speak."`
		TimeoutS  float64 `json:"timeout_s,omitempty" jsonschema:"Seconds; default 10, at most 30."`
	}
	readPageArgs struct {
		Cursor int `json:"cursor,omitempty" jsonschema:"The part to read, as the last part named; default 1."`
	}
	uploadArgs struct {
		Ref   string   `json:"ref" jsonschema:"A file input's ref, such as e17."`
		Files []string `json:"files" args:"list" jsonschema:"Paths of files the person gave this run."`
	}
	dragArgs struct {
		Ref string  `json:"ref" jsonschema:"The control to drag."`
		To  string  `json:"to,omitempty" jsonschema:"The ref to drop it on."`
		DX  float64 `json:"dx,omitempty" jsonschema:"Or: CSS pixels to move right (negative: left)."`
		DY  float64 `json:"dy,omitempty" jsonschema:"CSS pixels to move down (negative: up)."`
	}
	dialogArgs struct {
		Accept bool   `json:"accept" jsonschema:"OK (true) or Cancel (false)."`
		Text   string `json:"text,omitempty" jsonschema:"A prompt's answer."`
	}
	readDownloadArgs struct {
		Download string `json:"download" jsonschema:"A download's id or file name, from downloads."`
		Cursor   int    `json:"cursor,omitempty" jsonschema:"Where to go on reading, as the last page said."`
	}
	noArgs struct{}
)

// roomDefs are the tools both roles have: speaking, asking, finishing.
func roomDefs() []ToolDef {
	return []ToolDef{
		define[speakArgs]("speak", speakDesc),
		define[askArgs]("ask_user", askDesc).shaped(func(s *jsonschema.Schema) {
			s.Properties["options"].MinItems, s.Properties["options"].MaxItems = jsonschema.Ptr(2), jsonschema.Ptr(6)
		}),
		define[doneArgs]("done", doneDesc),
	}
}

// plannerDefs are the planner's tools.
func plannerDefs() []ToolDef {
	return append([]ToolDef{
		define[spawnArgs]("spawn", "Start an executor agent on a sub-task in its own tab. Returns {pid, tab}. Give tab to work in an existing tab (keeping its login), or url to open a new tab there."),
		define[waitArgs]("wait", "Wait for executors to finish, like waitpid. mode any returns when one finishes; all when every one has. Returns each finished executor's summary, success, tab and steps.").
			shaped(enum("mode", "any", "all")),
		define[killArgs]("kill", "Stop an executor."),
	}, roomDefs()...)
}

// executorDefs are an executor's tools, in the order the model sees them.
func executorDefs() []ToolDef {
	return append([]ToolDef{
		acting("click", "Click a control.", func(x refArgs) (Action, error) {
			return Action{Kind: ActClick, Ref: x.Ref}, nil
		}),
		acting("type", "Type text into a field, replacing its value; submit presses Enter after.", func(x typeArgs) (Action, error) {
			return Action{Kind: ActType, Ref: x.Ref, Text: x.Text, Submit: x.Submit}, nil
		}),
		acting("select", "Choose an option of a select element by its label.", func(x selectArgs) (Action, error) {
			return Action{Kind: ActSelect, Ref: x.Ref, Option: x.Option}, nil
		}),
		acting("press", "Press a key or chord: Enter, Escape, Tab, Control+A.", func(x pressArgs) (Action, error) {
			return Action{Kind: ActPress, Key: x.Key}, nil
		}),
		acting("scroll", "Scroll a control into view (ref), or the page in a direction.", func(x scrollArgs) (Action, error) {
			if x.Ref == "" && x.Direction == "" {
				return Action{}, errors.New("scroll needs a ref or a direction")
			}
			return Action{Kind: ActScroll, Ref: x.Ref, Direction: x.Direction, Amount: x.Amount}, nil
		}).shaped(enum("direction", "up", "down", "left", "right")),
		acting("navigate", "Open a URL in your tab.", func(x navigateArgs) (Action, error) {
			return Action{Kind: ActNavigate, URL: x.URL}, nil
		}),
		acting("back", "Go back in your tab's history.", func(noArgs) (Action, error) {
			return Action{Kind: ActBack}, nil
		}),
		acting("upload", "Set files on a file input. Only files the person gave this run can be sent.", func(x uploadArgs) (Action, error) {
			if len(x.Files) == 0 {
				return Action{}, errors.New("upload needs files: a list of paths")
			}
			return Action{Kind: ActUpload, Ref: x.Ref, Files: x.Files}, nil
		}),
		acting("drag", "Drag a control onto another (to), or by dx/dy CSS pixels: cards, sliders, sortable lists.", func(x dragArgs) (Action, error) {
			if x.To == "" && x.DX == 0 && x.DY == 0 {
				return Action{}, errors.New("drag needs to (a ref) or dx/dy")
			}
			return Action{Kind: ActDrag, Ref: x.Ref, To: x.To, DX: x.DX, DY: x.DY}, nil
		}),
		acting("hover", "Move the pointer over a control, for menus and tooltips that show on hover.", func(x refArgs) (Action, error) {
			return Action{Kind: ActHover, Ref: x.Ref}, nil
		}),
		acting("dialog", "Answer the page's open dialog (confirm, prompt, leave page): accept or cancel, with text for a prompt.", func(x dialogArgs) (Action, error) {
			return Action{Kind: ActDialog, Accept: x.Accept, Text: x.Text}, nil
		}),
		define[noArgs]("downloads", "List this run's downloads: id, name, size, type, state.").page(),
		define[readDownloadArgs]("read_download", "Read a downloaded file's text (CSV, text, JSON, HTML, PDF), a page at a time.").page(),
		define[noArgs]("screenshot", "See the page as an image, for canvas apps and anything that only means something as pixels. Coordinates for click_at are in its pixels.").page(),
		acting("click_at", "Click at a point of the latest screenshot.", func(x pointArgs) (Action, error) {
			return Action{Kind: ActClickAt, X: x.X, Y: x.Y}, nil
		}),
		acting("type_focused", "Type text into whatever has focus (after click_at on a canvas cell, for instance).", func(x textArgs) (Action, error) {
			return Action{Kind: ActTypeFocused, Text: x.Text}, nil
		}),
		define[readPageArgs]("read_page", "Read the page's whole text: headings, lists, tables (cells between |), frames. A long page comes in parts.").page(),
		define[observeArgs]("observe", "Look at the page again: a fresh list of controls with refs. With query, roles or within it searches the whole page, off-screen included (in view first): use it when a control you need is not in what you were shown. Refs it returns work with click and type, which scroll to them.").page(),
		define[pageWaitArgs]("wait", "Wait for what the page is still doing: until its text contains text, or no longer contains gone, or the URL contains url, or a control matching query appears; or for the room: until someone says heard, or the floor is free. With none of these, until the page is idle. Returns what changed since your last look, or says it timed out.").page(),
	}, roomDefs()...)
}
