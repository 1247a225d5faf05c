package agents

import (
	"encoding/json"
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// Every tool's schema is derived from its argument type, and each one is
// a closed object the strict decoder agrees with: arguments the schema
// describes decode, an unknown one is refused, and so is a call missing
// an argument the schema requires.
func TestToolSchemas(t *testing.T) {
	t.Parallel()
	for _, d := range append(plannerDefs(), executorDefs()...) {
		s := d.Schema()
		if s.Type != "object" || s.AdditionalProperties == nil || s.AdditionalProperties.Not == nil {
			t.Errorf("%s: not a closed object: %s", d.Name, d.OpenAI().Function.Parameters)
		}
		full := map[string]any{}
		for p, ps := range s.Properties {
			full[p] = sample(ps)
		}
		if _, err := d.Decode(mustJSON(t, full)); err != nil {
			t.Errorf("%s: every argument it describes: %v", d.Name, err)
		}
		if _, err := d.Decode(`{"no_such_argument": 1}`); err == nil {
			t.Errorf("%s: an unknown argument was accepted", d.Name)
		}
		for _, r := range s.Required {
			rest := maps.Clone(full)
			delete(rest, r)
			if _, err := d.Decode(mustJSON(t, rest)); err == nil || !strings.Contains(err.Error(), r) {
				t.Errorf("%s without %q: %v, want an error naming it", d.Name, r, err)
			}
		}
	}
}

// sample is a value a property of schema s accepts.
func sample(s *jsonschema.Schema) any {
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	switch s.Type {
	case "integer", "number":
		return 1
	case "boolean":
		return true
	case "array":
		return []any{sample(s.Items), sample(s.Items)}
	}
	return "x"
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
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
