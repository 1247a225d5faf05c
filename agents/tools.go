package agents

import (
	"encoding/json"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	openai "github.com/sashabaranov/go-openai"
)

// The model-facing tools are a public contract (TOOLS.md): users' prompts
// and evaluations depend on their names and arguments. Change them only
// with the reason written down there.

// ToolDef is one model-facing tool, defined once: its name, what it does,
// and the Go type its arguments decode into. Every schema a model or an
// MCP client sees (Chat Completions, Responses, MCP) is derived from that
// type, so they cannot drift apart.
type ToolDef struct {
	// Name is the tool's name in calls.
	Name string
	// Description says what the tool does, for the model.
	Description string
	// Page marks a tool that looks at or acts in one tab: MCP clients are
	// offered it too, with the tab named in its arguments.
	Page bool

	args   reflect.Type             // the argument struct
	refine func(*jsonschema.Schema) // what a struct tag cannot say: enums, bounds
	action func(any) (Action, error)
}

// define makes the definition of a tool whose arguments are a T.
func define[T any](name, desc string) ToolDef {
	return ToolDef{Name: name, Description: desc, args: reflect.TypeFor[T]()}
}

// page marks d as a page tool.
func (d ToolDef) page() ToolDef { d.Page = true; return d }

// shaped adds refine to d's schema.
func (d ToolDef) shaped(refine func(*jsonschema.Schema)) ToolDef { d.refine = refine; return d }

// acting makes d a page tool performed as one browser action built from
// its arguments.
func acting[T any](name, desc string, build func(T) (Action, error)) ToolDef {
	d := define[T](name, desc).page()
	d.action = func(v any) (Action, error) { return build(*v.(*T)) }
	return d
}

// listSchemas keeps lists plain arrays: the inferred ["null","array"] type
// is refused by some OpenAI-compatible servers' schema subsets.
var listSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[[]string](): {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
	reflect.TypeFor[[]int]():    {Type: "array", Items: &jsonschema.Schema{Type: "integer"}},
}

// Schema is the JSON Schema of d's arguments. Inference fails only for
// types JSON cannot hold (functions, channels), which no tool's arguments
// are (TestToolSchemas derives every one); should it fail, an open object
// is offered and the arguments are still checked when decoded.
func (d ToolDef) Schema() *jsonschema.Schema {
	s, err := jsonschema.ForType(d.args, &jsonschema.ForOptions{TypeSchemas: listSchemas})
	if err != nil {
		return &jsonschema.Schema{Type: "object"}
	}
	if d.refine != nil {
		d.refine(s)
	}
	return s
}

// noParams is the schema of a tool without arguments, with the empty
// properties some servers require of every object.
const noParams = `{"type":"object","properties":{},"additionalProperties":false}`

// OpenAI is d as a Chat Completions function tool.
func (d ToolDef) OpenAI() openai.Tool {
	s := d.Schema()
	params, err := json.Marshal(s)
	if err != nil || len(s.Properties) == 0 { // a schema For built always marshals
		params = []byte(noParams)
	}
	return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: d.Name, Description: d.Description, Parameters: json.RawMessage(params),
	}}
}

// Decode decodes a call's arguments into a new value of d's argument
// type, taking values sent in another JSON type as meant where the
// meaning is plain; its error is written for the model.
func (d ToolDef) Decode(raw string) (any, error) {
	v := reflect.New(d.args).Interface()
	if err := decodeArgs(d.Name, raw, v); err != nil {
		return nil, err
	}
	return v, nil
}

// Action decodes a call of an acting tool into the browser action it
// performs. ok is false for tools that are not one action (observe, wait,
// speak...).
func (d ToolDef) Action(raw string) (a Action, ok bool, err error) {
	if d.action == nil {
		return Action{}, false, nil
	}
	v, err := d.Decode(raw)
	if err != nil {
		return Action{}, true, err
	}
	a, err = d.action(v)
	return a, true, err
}

// openAITools renders defs for Chat Completions.
func openAITools(defs []ToolDef) []openai.Tool {
	out := make([]openai.Tool, len(defs))
	for i, d := range defs {
		out[i] = d.OpenAI()
	}
	return out
}

// lookup finds the tool named name in defs.
func lookup(defs []ToolDef, name string) (ToolDef, bool) {
	for _, d := range defs {
		if d.Name == name {
			return d, true
		}
	}
	return ToolDef{}, false
}

// names lists defs' names, for an error naming the tools there are.
func names(defs []ToolDef) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Name
	}
	return out
}

// enum restricts property prop of s to values.
func enum(prop string, values ...any) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) { s.Properties[prop].Enum = values }
}

// PlannerTools returns the planner's tools.
func PlannerTools() []openai.Tool { return openAITools(plannerDefs()) }

// ExecutorTools returns an executor's tools.
func ExecutorTools() []openai.Tool { return openAITools(executorDefs()) }

// PageTools returns the definitions of the tools that look at or act in
// one tab: the executor's, and what an MCP client drives a tab with.
func PageTools() []ToolDef {
	var out []ToolDef
	for _, d := range executorDefs() {
		if d.Page {
			out = append(out, d)
		}
	}
	return out
}
