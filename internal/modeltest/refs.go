package modeltest

import (
	"regexp"
	"strconv"
	"strings"
)

// controlRE is one control line of a compact observation or diff:
// an optional change mark, the ref, the role and the quoted name.
var controlRE = regexp.MustCompile(`(?m)^[~+ ]*(e\d+) (\S+) "([^"]*)"`)

// runRE is a run of controls that step together, written as one line
// (`e8…e17 textbox "Field 1"…"Field 10"`): the first and last ref, the
// role, and the names, which differ only in their last number.
var runRE = regexp.MustCompile(`(?m)^[~+ ]*e(\d+)…e(\d+) (\S+) "([^"]*?)(\d+)(\D*)"…"[^"]*?(\d+)\D*"`)

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

// findRef is the latest control line of role whose name matches, a run's
// controls read one by one as its step says.
func findRef(text, role string, match func(name string) bool) string {
	type hit struct {
		at  int
		ref string
	}
	var last hit
	for _, m := range controlRE.FindAllStringSubmatchIndex(text, -1) {
		if text[m[4]:m[5]] == role && match(text[m[6]:m[7]]) && m[0] >= last.at {
			last = hit{m[0], text[m[2]:m[3]]}
		}
	}
	for _, m := range runRE.FindAllStringSubmatchIndex(text, -1) {
		if text[m[6]:m[7]] != role || m[0] < last.at {
			continue
		}
		from, _ := strconv.Atoi(text[m[2]:m[3]])
		to, _ := strconv.Atoi(text[m[4]:m[5]])
		n0, _ := strconv.Atoi(text[m[10]:m[11]])
		pre, suf := text[m[8]:m[9]], text[m[12]:m[13]]
		for k := 0; k <= to-from; k++ {
			if match(pre + strconv.Itoa(n0+k) + suf) {
				last = hit{m[0], "e" + strconv.Itoa(from+k)}
			}
		}
	}
	return last.ref
}
