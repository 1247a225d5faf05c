package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
)

//go:embed findinpage.js
var findInPageJS string

// FindResult is what a find in page found: how many matches, and which
// one (from 1; 0 when none) is active.
type FindResult struct {
	Matches int `json:"matches"`
	Active  int `json:"active"`
}

// FindInPage finds query in the page's visible text as Chrome's find bar
// does: every match highlighted, the active one apart and scrolled into
// view. The same query again moves the active match by step (1 next,
// -1 previous, 0 stays); a new query starts at its first match; "" clears
// the highlights.
func (t *Tab) FindInPage(ctx context.Context, query string, step int) (FindResult, error) {
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return FindResult{}, fmt.Errorf("find in page: %w", err)
	}
	defer cancel()
	q, err := json.Marshal(query)
	if err != nil {
		return FindResult{}, fmt.Errorf("find in page: %w", err)
	}
	expr := fmt.Sprintf("(%s)(%s, %d)", findInPageJS, q, max(-1, min(1, step)))
	res, err := cdp.Call(cctx, t.target(), runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: new(true)})
	if err != nil {
		return FindResult{}, fmt.Errorf("find in page: %w", t.fail(cctx, err))
	}
	if res.ExceptionDetails != nil {
		return FindResult{}, fmt.Errorf("find in page: %s", res.ExceptionDetails.Text)
	}
	var r FindResult
	if res.Result == nil || json.Unmarshal(res.Result.Value, &r) != nil {
		return FindResult{}, fmt.Errorf("find in page: the page answered no count")
	}
	return r, nil
}
