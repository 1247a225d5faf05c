package mcpserver

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"vroom/agents"
)

// The engine tools are the executor's page tools, generated from the one
// table: the same names, and each schema the table's plus the tab it acts
// in, without the arguments that need a run's room. tools/list stays the
// smallest of the engines'.
func TestMCPPageTools(t *testing.T) {
	h := newMCPHarness(t)
	cs := h.connect(t, "stdio", nil)
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tool := range list.Tools {
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		got[tool.Name] = string(b)
	}
	var want []string
	for _, def := range agents.PageTools() {
		want = append(want, def.Name)
		schema, ok := got[def.Name]
		if !ok {
			t.Errorf("the executor's page tool %s is not offered over MCP", def.Name)
			continue
		}
		ws := def.Schema()
		var m struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal([]byte(schema), &m); err != nil {
			t.Fatal(err)
		}
		if m.Properties["tab"] == nil || !slices.Contains(m.Required, "tab") {
			t.Errorf("%s's schema lacks a required tab: %s", def.Name, schema)
		}
		for name, p := range ws.Properties {
			wb, _ := json.Marshal(p)
			var mine, table any
			_ = json.Unmarshal(wb, &table)                // a marshalled schema always reads back
			_ = json.Unmarshal(m.Properties[name], &mine) // an absent one stays nil, which differs
			room := name == "heard" || name == "floor_free"
			switch {
			case room && m.Properties[name] != nil:
				t.Errorf("%s offers %s, which needs a run's room", def.Name, name)
			case !room && !reflect.DeepEqual(mine, table):
				t.Errorf("%s's %s over MCP is %s, the table's %s", def.Name, name, m.Properties[name], wb)
			}
		}
		for _, r := range ws.Required {
			if !slices.Contains(m.Required, r) {
				t.Errorf("%s does not require %s over MCP", def.Name, r)
			}
		}
		if extra := len(m.Properties) - 1 - (len(ws.Properties) - len(roomOnly(ws.Properties))); extra != 0 {
			t.Errorf("%s over MCP has %d properties beyond the table's and tab: %s", def.Name, extra, schema)
		}
	}
	var engine []string
	for name := range got {
		if name != "run_task" && name != "stop_run" && name != "open" && name != "close" {
			engine = append(engine, name)
		}
	}
	slices.Sort(engine)
	slices.Sort(want)
	if !slices.Equal(engine, want) {
		t.Errorf("the engine tools are %v, the executor's page tools %v", engine, want)
	}
	b, _ := json.Marshal(list)
	t.Logf("tools/list: %d characters, %d tools", len(b), len(list.Tools))
	if len(b) > 14000 {
		t.Errorf("tools/list is %d characters: keep it small (%s)", len(b), strings.Join(engine, ", "))
	}
}

// roomOnly are the room's arguments among props.
func roomOnly(props map[string]*jsonschema.Schema) []string {
	var out []string
	for name := range props {
		if name == "heard" || name == "floor_free" {
			out = append(out, name)
		}
	}
	return out
}
