// Command vroom is a desktop AI browser in which several agents work at once,
// each in its own tab, shown live in one grid, and the person can talk to
// them. This file only wires: everything else lives in app, agents, voice and
// browser.
package main

import (
	"context"
	"embed"
	"io/fs"
	"os"

	"vroom/app"
)

//go:embed all:frontend/dist
var dist embed.FS

func main() {
	assets, err := fs.Sub(dist, "frontend/dist")
	if err != nil {
		panic(err) // the embed pattern above guarantees the directory
	}
	os.Exit(app.Main(context.Background(), os.Args[1:], assets, os.Stdout, os.Stderr))
}
