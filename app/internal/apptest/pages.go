package apptest

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed testdata
var testdata embed.FS

// Pages are the fixture pages (testdata): a shop, a quote desk, a blog
// full of injections, forms, a spreadsheet, a page whose script never
// yields (busy.html) and one that redirects itself forever
// (redirectloop.html), under flows/ the pages that behave like real
// sites (typeahead, a stepper, popups, consent), and under asks/ those
// that ask the browser for files, downloads, drags, dialogs and windows
// (AsksSite).
func Pages() fs.FS {
	sub, err := fs.Sub(testdata, "testdata")
	if err != nil {
		panic(err) // the embed pattern above guarantees the directory
	}
	return sub
}

// PageServer serves the fixture pages under dir ("." for all of them).
func PageServer(dir string) http.Handler {
	sub, err := fs.Sub(Pages(), dir)
	if err != nil {
		panic(err) // a fixture directory that does not exist is the test's bug
	}
	return http.FileServer(http.FS(sub))
}
