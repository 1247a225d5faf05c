package browser

import (
	"context"
	_ "embed"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// Chromium mutes a whole browser (--mute-audio) or nothing, and the
// DevTools protocol has no per-tab mute. A browser whose tabs must be
// heard, some of them and not others (the person's and an agent's), is
// launched with sound, and a tab is muted by a script in its documents:
// media elements muted, Web Audio contexts suspended, for what plays now
// and what starts later. Out-of-process iframes (another site's embedded
// player) are not reached.

//go:embed mute.js
var muteJS string

// muteState is the tab's mute script, when installed.
type muteState struct {
	mu     sync.Mutex
	script page.ScriptIdentifier
}

// SetMuted silences the tab's sound (muted) or lets it play again. It is
// for the tab's holder: it checks the lease.
func (t *Tab) SetMuted(ctx context.Context, muted bool) error {
	cctx, cancel, err := t.beginTab(ctx)
	if err != nil {
		return fmt.Errorf("mute %s: %w", t.id, err)
	}
	defer cancel()
	t.mute.mu.Lock()
	defer t.mute.mu.Unlock()
	if muted && t.mute.script == "" {
		res, err := cdp.Call(cctx, t.target(), page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: fmt.Sprintf(muteJS, "true"), RunImmediately: new(true),
		})
		if err != nil {
			return fmt.Errorf("mute %s: %w", t.id, t.fail(cctx, err))
		}
		t.mute.script = res.Identifier
		return nil
	}
	if !muted && t.mute.script != "" {
		if _, err := cdp.Call(cctx, t.target(), page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: t.mute.script}); err != nil {
			return fmt.Errorf("unmute %s: %w", t.id, t.fail(cctx, err))
		}
		t.mute.script = ""
		// The document loaded now keeps its script: told to play.
		if _, err := cdp.Call(cctx, t.target(), runtime.Evaluate, runtime.EvaluateParams{Expression: fmt.Sprintf(muteJS, "false"), Silent: new(true)}); err != nil {
			return fmt.Errorf("unmute %s: %w", t.id, t.fail(cctx, err))
		}
	}
	return nil
}

// Muted reports whether the tab's sound is silenced by SetMuted.
func (t *Tab) Muted() bool {
	t.mute.mu.Lock()
	defer t.mute.mu.Unlock()
	return t.mute.script != ""
}
