package agents

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// Every tool's schema is derived from its argument type, and each one is
// a closed object the strict decoder agrees with: a property the schema
// offers decodes, one it does not is refused.
func TestToolSchemas(t *testing.T) {
	t.Parallel()
	for _, d := range append(plannerDefs(), executorDefs()...) {
		tl := d.OpenAI()
		var s struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
			Additional *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(tl.Function.Parameters.(json.RawMessage), &s); err != nil {
			t.Fatalf("%s: schema: %v", d.Name, err)
		}
		if s.Type != "object" || s.Properties == nil || s.Additional == nil || *s.Additional {
			t.Errorf("%s: not a closed object with properties: %s", d.Name, tl.Function.Parameters)
		}
		for p := range s.Properties {
			if _, err := d.Decode(`{"` + p + `": null}`); err != nil {
				t.Errorf("%s: its own property %q is refused: %v", d.Name, p, err)
			}
		}
		if _, err := d.Decode(`{"no_such_argument": 1}`); err == nil {
			t.Errorf("%s: an unknown argument was accepted", d.Name)
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s: requires %q, which it does not define", d.Name, r)
			}
		}
	}
}

// TOOLS.md's list of signatures is the table's: a tool or argument added,
// renamed or dropped in one and not the other fails here, with the block
// to paste.
func TestToolsDocMatchesTable(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("TOOLS.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- signatures: generated from tooldefs.go, checked by TestToolsDocMatchesTable -->\n", "<!-- end of signatures -->"
	i, j := strings.Index(string(doc), begin), strings.Index(string(doc), end)
	want := signatures()
	if i < 0 || j < i {
		t.Fatalf("TOOLS.md has no signatures block; add:\n%s%s%s", begin, want, end)
	}
	if got := string(doc[i+len(begin) : j]); got != want {
		t.Errorf("TOOLS.md's signatures differ from the tool table; replace the block with:\n%s%s%s", begin, want, end)
	}
}

// signatures renders the table as one line per tool: name(required,
// optional?).
func signatures() string {
	var b strings.Builder
	for _, role := range []struct {
		name string
		defs []ToolDef
	}{{"Planner", plannerDefs()}, {"Executor", executorDefs()}} {
		b.WriteString(role.name + ":\n\n```\n")
		for _, d := range role.defs {
			b.WriteString(signature(d))
			if d.Page {
				b.WriteString("   (MCP too)")
			}
			b.WriteString("\n")
		}
		b.WriteString("```\n")
	}
	return b.String()
}

func signature(d ToolDef) string {
	s := d.Schema()
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	var args []string
	for _, p := range s.PropertyOrder {
		if !required[p] {
			p += "?"
		}
		args = append(args, p)
	}
	return d.Name + "(" + strings.Join(args, ", ") + ")"
}
