//go:build tools

// Package tools records the build tools Vroom needs so `go build` can make
// them from the module proxy.
package tools

import _ "github.com/wailsapp/wails/v2/cmd/wails"
