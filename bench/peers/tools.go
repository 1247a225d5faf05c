package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// printTools writes each tool's name and argument names, for whoever
// updates a spec after a peer changes its tools.
func printTools(w io.Writer, name string, c *mcpConn) {
	fmt.Fprintf(w, "== %s: %d tools, %d characters\n", name, len(c.tools), c.toolChars())
	for _, t := range c.tools {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			b = []byte("?")
		}
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		_ = json.Unmarshal(b, &s) // a schema that is not an object lists no arguments
		var props []string
		for p, v := range s.Properties {
			props = append(props, p+"="+clip(string(v), 120))
		}
		sort.Strings(props)
		fmt.Fprintf(w, "%s required=%v\n", t.Name, s.Required)
		for _, p := range props {
			fmt.Fprintf(w, "    %s\n", p)
		}
	}
}
