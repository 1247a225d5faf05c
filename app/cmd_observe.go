package app

import (
	"context"
	"io"

	"vroom/browser"
)

// runObserve is `vroom observe URL`: the page as Vroom's agents see it.
func runObserve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return browser.ObserveCommand(ctx, args, stdout, stderr)
}
