package main

import (
	"context"
	"regexp"
	"strings"
)

// engine is one browser engine as a model drives it: every method is one
// call (one tool call, or one CLI command) and returns what that call gave
// back, timed.
type engine interface {
	// Name is the engine's column in the table.
	Name() string
	// ToolChars is the size of the tools the engine puts before a model
	// (0 for a CLI, whose help a model reads once, if ever).
	ToolChars() int
	// Open goes to url, in a new tab or in place, as the engine does.
	Open(ctx context.Context, url string) (reply, error)
	// Observe is the engine's look at the page, as its docs recommend.
	Observe(ctx context.Context) (reply, error)
	// Click clicks the control with the ref.
	Click(ctx context.Context, ref string) (reply, error)
	// Type puts text into the field with the ref, replacing its value.
	Type(ctx context.Context, ref, text string) (reply, error)
	// Select chooses the option (by its text) of the select with the ref.
	Select(ctx context.Context, ref, option string) (reply, error)
	// Find searches the page for text with the engine's search tool; ok is
	// false when it has none.
	Find(ctx context.Context, text string) (r reply, ok bool, err error)
	// Read returns the page's text with the engine's reading tool; ok is
	// false when it has none.
	Read(ctx context.Context) (r reply, ok bool, err error)
	// WaitText waits until the page shows text.
	WaitText(ctx context.Context, text string) (reply, error)
	// Ref is the ref of the control with one of roles and the name in an
	// observation's text, or "" when it is not there.
	Ref(obs string, roles []string, name string) string
	// Done ends the page, untimed: an engine that opens a tab per page
	// closes it here.
	Done(ctx context.Context) error
	// Close stops the engine and its browser.
	Close() error
}

// refFinder finds refs in one engine's observations: the first line that
// names one of the roles and the quoted name, read with the engine's ref
// pattern (its first group is the ref).
type refFinder struct {
	re *regexp.Regexp
	// prefix is put before the ref when it is used (agent-browser's "@").
	prefix string
}

// find is the ref of the control, or "".
func (f refFinder) find(obs string, roles []string, name string) string {
	quoted := `"` + name + `"`
	for _, line := range strings.Split(obs, "\n") {
		if !strings.Contains(line, quoted) || !hasRole(line, roles) {
			continue
		}
		if m := f.re.FindStringSubmatch(line); m != nil {
			return f.prefix + m[1]
		}
	}
	return ""
}

// hasRole says whether a line names one of the roles as a word.
func hasRole(line string, roles []string) bool {
	for _, r := range roles {
		i := strings.Index(line, r)
		for i >= 0 {
			before := i == 0 || !isWordByte(line[i-1])
			after := i+len(r) == len(line) || !isWordByte(line[i+len(r)])
			if before && after {
				return true
			}
			next := strings.Index(line[i+1:], r)
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return false
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
