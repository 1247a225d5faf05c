package mcpserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"vroom/agents"
	"vroom/browser"
	"vroom/internal/modeltest"
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

// A look at the page the client was last told of leaves the page line
// out; a title that changed says it again, and open and a navigation
// always carry it.
func TestMCPObserveSaysThePageLineOnce(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Inbox</title><p>Three new letters.</p>
<button onclick="document.title='Inbox (1)'">Mark read</button> <a href="/next">Next</a>`)
	})
	mux.HandleFunc("GET /next", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Archive</title><p>Old letters.</p><a href="/">Inbox</a>`)
	})
	site := httptest.NewServer(mux)
	defer site.Close()

	h := newMCPHarness(t)
	cs := h.connect(t, "stdio", nil)
	var page pageResult
	callTool(t, cs, "open", map[string]any{"url": site.URL + "/"}, &page)
	line := browser.PageLine("Inbox", site.URL+"/")
	if !strings.Contains(page.Page, line) {
		t.Fatalf("open lacks its page line %q: %s", line, page.Page)
	}
	look := func(why string, want bool) pageResult {
		t.Helper()
		var got pageResult
		callTool(t, cs, "observe", map[string]any{"tab": page.Tab}, &got)
		if has := strings.HasPrefix(got.Page, "page "); has != want || !strings.Contains(got.Page, "Mark read") && got.Title != "Archive" {
			t.Fatalf("observe %s: page line %v, want %v: %s", why, has, want, got.Page)
		}
		return got
	}
	look("after open", false)
	var acted actResult
	callTool(t, cs, "click", map[string]any{"tab": page.Tab, "ref": modeltest.Ref(page.Page, "button", "Mark read")}, &acted)
	if !acted.Effect {
		t.Fatalf("click Mark read: %+v", acted)
	}
	if got := look("after the title changed", true); got.Title != "Inbox (1)" {
		t.Fatalf("the title after Mark read: %q", got.Title)
	}
	look("again", false)
	callTool(t, cs, "click", map[string]any{"tab": page.Tab, "ref": modeltest.Ref(page.Page, "link", "Next")}, &acted)
	if !acted.Navigated || !strings.HasPrefix(acted.Changes, browser.PageLine("Archive", site.URL+"/next")) {
		t.Fatalf("a navigation's changes lack the new page line: %+v", acted)
	}
	look("after the navigation", false)
}
