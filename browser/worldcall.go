package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
)

// worldName is the isolated world the walker runs in, in every frame.
const worldName = "vroom"

// absent is what the first call in a preinstalled world answers when its
// document started before the walker was installed for new ones.
const absent = `"vroom:absent"`

// boot runs the walker in w if no call has yet, for the few calls that
// reach it other than through evalIn (a function called on an object,
// a wait that must not forget the world).
func boot(ctx context.Context, w *world) error {
	if w.booted.Load() {
		return nil
	}
	res, err := evalBooting(ctx, w, "true")
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("page script: %s", exceptionText(res.ExceptionDetails))
	}
	return nil
}

// evalBooting evaluates expr in w, awaiting promises, with the walker's
// start before it on the world's first call: the walker found running
// where the document started with it, else sent along.
func evalBooting(ctx context.Context, w *world, expr string) (runtime.EvaluateResult, error) {
	boot := !w.booted.Load()
	if boot && w.preinstalled {
		res, err := evaluate(ctx, w, "globalThis.__vroom ? (__vroom.start(), "+expr+") : "+absent)
		if err != nil || res.ExceptionDetails != nil || res.Result == nil || string(res.Result.Value) != absent {
			if err == nil && res.ExceptionDetails == nil {
				w.booted.Store(true)
			}
			return res, err
		}
	}
	if boot {
		// The walker returns at once where it already runs, so two first
		// calls at the same time do no harm.
		expr = walkerJS + ";\n" + expr
	}
	res, err := evaluate(ctx, w, expr)
	if boot && err == nil && res.ExceptionDetails == nil {
		w.booted.Store(true)
	}
	return res, err
}

func evaluate(ctx context.Context, w *world, expr string) (runtime.EvaluateResult, error) {
	return cdp.Call(ctx, w.sess, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ContextID: w.ctxID, ReturnByValue: new(true), AwaitPromise: new(true), Silent: new(true),
	})
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
