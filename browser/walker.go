package browser

import (
	_ "embed"
	"strconv"
	"strings"
)

// The walker is the in-page half of the browser package. It runs in an
// isolated world of each frame, so page scripts can neither see nor tamper
// with it, and it keeps refs in a WeakMap instead of stamping attributes:
// observing a page never mutates its DOM (no MutationObserver or
// attributeChangedCallback fires because we looked).
//
// Its source is the modules under js/, one concern each, joined in
// walkerModules' order inside one function, so they share one scope and
// are installed as one script. A module may call what any other declares
// (function declarations are hoisted); top-level statements run in the
// order joined, and api.js, which publishes the walker, runs last.

var (
	//go:embed js/roles.js
	jsRoles string
	//go:embed js/core.js
	jsCore string
	//go:embed js/hidden.js
	jsHidden string
	//go:embed js/naming.js
	jsNaming string
	//go:embed js/walk.js
	jsWalk string
	//go:embed js/text.js
	jsText string
	//go:embed js/read.js
	jsRead string
	//go:embed js/passages.js
	jsPassages string
	//go:embed js/modal.js
	jsModal string
	//go:embed js/refs.js
	jsRefs string
	//go:embed js/observe.js
	jsObserve string
	//go:embed js/prepare.js
	jsPrepare string
	//go:embed js/settle.js
	jsSettle string
	//go:embed js/input.js
	jsInput string
	//go:embed js/firstlook.js
	jsFirstLook string
	//go:embed js/api.js
	jsAPI string
)

// walkerModule is one file of the walker's source.
type walkerModule struct {
	name string // under js/
	src  string
}

// walkerModules are the walker's modules in the order they run.
func walkerModules() []walkerModule {
	return []walkerModule{
		{"roles.js", jsRoles}, {"core.js", jsCore}, {"hidden.js", jsHidden}, {"naming.js", jsNaming},
		{"walk.js", jsWalk}, {"text.js", jsText}, {"read.js", jsRead}, {"passages.js", jsPassages}, {"modal.js", jsModal}, {"refs.js", jsRefs},
		{"observe.js", jsObserve}, {"prepare.js", jsPrepare}, {"settle.js", jsSettle}, {"input.js", jsInput},
		{"firstlook.js", jsFirstLook}, {"api.js", jsAPI},
	}
}

// walkerJS is the walker as one script: the modules in one function that
// does nothing in a frame that already has the walker. walkerDocJS is the
// same walker as a session's new documents get it, in its world, as each
// starts (instrument): it waits for its first call to start counting
// mutations.
var (
	walkerJS    = joinWalker(walkerModules(), false)
	walkerDocJS = joinWalker(walkerModules(), true)
)

func joinWalker(mods []walkerModule, atDocStart bool) string {
	var b strings.Builder
	if atDocStart {
		// Only a tab's top document gets it as it starts: a page's many
		// frames (ads, widgets) would each pay for a walker most are never
		// asked about. A frame's walker comes with its first call.
		b.WriteString("(() => {\nif (globalThis.__vroom || window !== window.top) return;\n")
	} else {
		b.WriteString("(() => {\nif (globalThis.__vroom) return;\n")
	}
	b.WriteString("const AT_DOC_START = " + strconv.FormatBool(atDocStart) + ";\n")
	b.WriteString("const LOOK_BINDING = " + strconv.Quote(lookBinding) + ";\n")
	for _, m := range mods {
		b.WriteString("\n// js/" + m.name + "\n")
		writeCompact(&b, m.src)
	}
	b.WriteString("})();\n")
	return b.String()
}

// writeCompact writes src without its indentation, blank lines and
// whole-line comments: every document parses the walker, and a third of
// its bytes are those. The walker has no template literals, so no line
// break is inside a string.
func writeCompact(b *strings.Builder, src string) {
	for line := range strings.Lines(src) {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
}
