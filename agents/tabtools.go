package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// The page tools for a client that drives a tab from outside a run (MCP):
// the same definitions, with the tab named in each call's arguments, and
// without the arguments that need a run's room. An argument whose field
// carries the room tag is such an argument: the tag is its one mark.

// tabDesc describes the tab argument a client outside a run adds.
const tabDesc = "The tab's id, from open."

// Acting reports whether d is performed as one browser action, which
// Action builds from its arguments.
func (d ToolDef) Acting() bool { return d.action != nil }

// roomArgs are the JSON names of d's arguments that need a run's room.
func (d ToolDef) roomArgs() []string {
	var out []string
	for i := range d.args.NumField() {
		f := d.args.Field(i)
		if _, ok := f.Tag.Lookup("room"); ok {
			out = append(out, strings.Split(f.Tag.Get("json"), ",")[0])
		}
	}
	return out
}

// TabSchema is d's schema for a client outside a run: the room's
// arguments removed, and tab, the id of the tab the call acts in, first
// and required.
func (d ToolDef) TabSchema() *jsonschema.Schema {
	s := d.Schema()
	for _, name := range d.roomArgs() {
		delete(s.Properties, name)
		s.Required = without(s.Required, name)
		s.PropertyOrder = without(s.PropertyOrder, name)
	}
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	s.Properties["tab"] = &jsonschema.Schema{Type: "string", Description: tabDesc}
	s.Required = append([]string{"tab"}, s.Required...)
	s.PropertyOrder = append([]string{"tab"}, without(s.PropertyOrder, "tab")...)
	return s
}

// without is list without name.
func without(list []string, name string) []string {
	var out []string
	for _, v := range list {
		if v != name {
			out = append(out, v)
		}
	}
	return out
}

// SplitTab takes a call's arguments from outside a run apart: the tab it
// acts in, and the rest, which are d's own and decode as a run's call
// does. A room argument is refused: there is no room outside a run.
func (d ToolDef) SplitTab(raw string) (tab, rest string, err error) {
	var m map[string]json.RawMessage
	if strings.TrimSpace(raw) == "" {
		raw = "{}"
	}
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return "", "", fmt.Errorf("the arguments of %s are not a JSON object: %w", d.Name, err)
	}
	if err := json.Unmarshal(m["tab"], &tab); err != nil || tab == "" {
		return "", "", fmt.Errorf("the arguments of %s lack \"tab\", the tab's id from open", d.Name)
	}
	delete(m, "tab")
	for _, name := range d.roomArgs() {
		if _, ok := m[name]; ok {
			return "", "", fmt.Errorf("%s's %q needs a run's room; a tab driven from outside a run has none", d.Name, name)
		}
	}
	b, err := json.Marshal(m)
	if err != nil { // a map of raw JSON values always marshals
		return "", "", fmt.Errorf("the arguments of %s: %w", d.Name, err)
	}
	return tab, string(b), nil
}

// ObserveOptions decodes observe's arguments into the tab's find options,
// as the executor's observe does.
func ObserveOptions(raw string) (FindOptions, error) {
	var x observeArgs
	if err := decodeArgs("observe", raw, &x); err != nil {
		return FindOptions{}, err
	}
	return findOptions(x)
}

// PageWait decodes the page's conditions of wait's arguments and how long
// to wait for them, as the executor's wait does.
func PageWait(raw string) (WaitFor, time.Duration, error) {
	var x pageWaitArgs
	if err := decodeArgs("wait", raw, &x); err != nil {
		return WaitFor{}, 0, err
	}
	return waitFor(x)
}

// ReadPageCall is read_page for a client outside a run: its arguments
// (the tab taken off) decoded as the executor's are, and the part of t's
// text they ask for, fenced as untrusted page data.
func ReadPageCall(ctx context.Context, t Tab, raw string) (string, error) {
	var x readPageArgs
	if err := decodeArgs("read_page", raw, &x); err != nil {
		return "", err
	}
	return ReadPage(ctx, t, x.Cursor)
}
