//go:build bindings

package app

// generatingBindings is true in the binary `wails generate module` builds
// (with the bindings tag) and runs only to list the bound methods: it opens
// no window, so it must not need a display.
const generatingBindings = true
