//go:build !bindings

package app

// generatingBindings is false in every binary but the one `wails generate
// module` builds to list the bound methods (see bindings_on.go).
const generatingBindings = false
