package agents

import (
	"errors"
	"fmt"
)

// CoveredError is an action refused because something covers its target
// where it would be pressed: a popup, a cookie banner, a chat bubble, a
// sticky header. It carries that layer's controls, so the model can close
// it (or answer it) in its next call, without another look at the page.
type CoveredError struct {
	// Err is the refusal, as the tab gave it.
	Err error
	// URL is the page's address, the source of the fenced controls.
	URL string
	// Cover is the covering layer as compact controls with refs (page
	// content: it is fenced as untrusted data).
	Cover string
}

// Error is the refusal's own message; the controls are shown apart.
func (e *CoveredError) Error() string { return e.Err.Error() }

// Unwrap lets errors.Is and errors.As see the tab's error.
func (e *CoveredError) Unwrap() error { return e.Err }

// actError is the result of an action that could not run: the error line
// and, when a layer covers the target, that layer's controls fenced under
// it ("what covers it now"). Those are a partial view of the page, as an
// observe search's, and are pruned as one (foundMsg): they never push the
// latest full view out of the prompt.
func actError(shown Action, err error) toolOut {
	line := fmt.Sprintf("error: %s: %v", shown, err)
	var ce *CoveredError
	if !errors.As(err, &ce) || ce.Cover == "" {
		return toolOut{text: line}
	}
	return toolOut{text: line + "\nwhat covers it now (close it or use it with these refs, then try again):\n" + fence(ce.URL, ce.Cover), kind: foundMsg}
}
