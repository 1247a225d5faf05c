package app

import (
	"context"
	"fmt"
	"io"
)

// runObserve is replaced by the browser engine's `vroom observe`.
func runObserve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "vroom observe: not built yet")
	return 1
}
