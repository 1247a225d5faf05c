package browser

import (
	"context"
	"fmt"
)

// BatchResult is the outcome of a batch: one result per step run, the
// index and error of the step that failed (if any), and one observation.
type BatchResult struct {
	Results     []*Result    `json:"results"`
	Failed      int          `json:"failed"` // -1 when every step ran
	Err         string       `json:"error,omitempty"`
	Observation *Observation `json:"observation,omitempty"`
}

// Batch runs the steps in order, each with its checks; a step whose
// action fails or whose Until does not hold stops the batch. It returns one
// observation of the final page. The error is that of the failed step.
func (t *Tab) Batch(ctx context.Context, steps []Action, opts ObserveOptions) (*BatchResult, error) {
	for i, a := range steps {
		if err := t.validate(a); err != nil {
			return &BatchResult{Failed: i, Err: err.Error()}, fmt.Errorf("batch step %d %s: %w", i, describe(a), err)
		}
	}
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	defer cancel()
	t.op.Lock()
	defer t.op.Unlock()
	br := &BatchResult{Failed: -1}
	var stepErr error
	for i, a := range steps {
		r, err := t.act(cctx, a)
		if r != nil {
			br.Results = append(br.Results, r)
		}
		if r != nil && r.Dialog != nil {
			// The page is blocked until the dialog is answered: the
			// steps after it, and the observation, wait for that.
			br.Failed = i
			stepErr = fmt.Errorf("batch step %d %s: %w", i, describe(a), &DialogError{Dialog: *r.Dialog})
			br.Err = stepErr.Error()
			return br, stepErr
		}
		if err != nil {
			br.Failed = i
			stepErr = fmt.Errorf("batch step %d %s: %w", i, describe(a), t.fail(cctx, err))
			br.Err = stepErr.Error()
			break
		}
	}
	if cctx.Err() == nil {
		o := opts.norm()
		obs, err := t.observe(cctx, o)
		if err != nil {
			// The steps' outcome stands; a nil Observation tells the
			// caller to observe again.
			t.b.opts.Logf("batch %s: observe after the steps: %v", t.id, err)
		} else {
			t.bases.put(o.key(), obs)
			br.Observation = obs
		}
	}
	return br, stepErr
}
