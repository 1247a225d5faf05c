package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
)

// boot runs the walker in w if no call has yet, for the few calls that
// reach it other than through evalIn (a function called on an object,
// a wait that must not forget the world).
func boot(ctx context.Context, w *world) error {
	if w.booted.Load() {
		return nil
	}
	res, err := cdp.Call(ctx, w.sess, runtime.Evaluate, runtime.EvaluateParams{Expression: walkerJS, ContextID: w.ctxID, Silent: new(true)})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("page script: %s", exceptionText(res.ExceptionDetails))
	}
	w.booted.Store(true)
	return nil
}

// call invokes __vroom.fn(args...) in the world.
func (t *Tab) call(ctx context.Context, w *world, fn string, out any, args ...any) error {
	expr, err := callExpr(fn, args...)
	if err != nil {
		return err
	}
	return t.evalIn(ctx, w, expr, out)
}

// callExpr is the expression that calls __vroom.fn with args as JSON.
func callExpr(fn string, args ...any) (string, error) {
	var sb strings.Builder
	sb.WriteString("__vroom.")
	sb.WriteString(fn)
	sb.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			sb.WriteByte(',')
		}
		j, err := json.Marshal(a)
		if err != nil {
			return "", err
		}
		sb.Write(j)
	}
	sb.WriteByte(')')
	return sb.String(), nil
}
