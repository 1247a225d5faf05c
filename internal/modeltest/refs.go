package modeltest

import (
	"regexp"
	"strings"
)

// controlRE is one control line of a compact observation or diff:
// an optional change mark, the ref, the role and the quoted name.
var controlRE = regexp.MustCompile(`(?m)^[~+ ]*(e\d+) (\S+) "([^"]*)"`)

// Ref finds the ref of the latest control with role whose name contains
// name in text (what the agent has seen), "" when there is none: a
// scripted model acts on a control it was shown, as a real one must.
func Ref(text, role, name string) string {
	return findRef(text, role, func(n string) bool { return strings.Contains(n, name) })
}

// ExactRef is Ref for the control whose name is exactly name: a careful
// model picks the suggestion that is the thing, not one that merely
// contains it.
func ExactRef(text, role, name string) string {
	return findRef(text, role, func(n string) bool { return n == name })
}

// findRef is the latest control line of role whose name matches.
func findRef(text, role string, match func(name string) bool) string {
	found := ""
	for _, m := range controlRE.FindAllStringSubmatch(text, -1) {
		if m[2] == role && match(m[3]) {
			found = m[1]
		}
	}
	return found
}
