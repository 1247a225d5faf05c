package app

import (
	"context"
	"fmt"
	"io"
)

// runRun is the headless `vroom run`; replaced by the runtime wiring.
func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "vroom run: not built yet")
	return 1
}

// runReplay is `vroom replay`; replaced by the runtime wiring.
func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "vroom replay: not built yet")
	return 1
}
