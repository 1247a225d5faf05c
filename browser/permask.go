package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The protocol has no event for a page's permission request, and a
// headless Chromium denies each one it has no setting for. A browser with
// Options.AskPermissions asks instead: a script in the tab's documents
// holds the request (geolocation, notifications, camera, microphone) while
// the permission is neither granted nor denied, and reports it through a
// binding; the holder sets the permission (SetPermission) and lets the
// request go on (AnswerPermission), which the real API then answers by the
// setting. A tab someone leased is never held: its requests go on at
// once, answered by the settings as without asking.

//go:embed permask.js
var permAskJS string

// permBinding is the function the page script reports requests through.
const permBinding = "__vroomAskPermission"

// PermissionAsk is a page's request for permissions, waiting.
type PermissionAsk struct {
	// ID numbers the document's requests; AnswerPermission takes it.
	ID int `json:"id"`
	// Names are the permissions asked, as the Permissions API names them.
	Names  []string `json:"names"`
	Origin string   `json:"origin"`
}

// String says what the page asks, as a person reads it.
func (p PermissionAsk) String() string {
	return fmt.Sprintf("%s asks to use your %s", p.Origin, strings.Join(p.Names, " and "))
}

// permAsks is a tab's waiting permission requests.
type permAsks struct {
	mu      sync.Mutex
	pending []*openPermAsk
}

type openPermAsk struct {
	p    PermissionAsk
	sess *chromedp.Target
	ctx  runtime.ExecutionContextID
}

// askPermissions installs the binding and the page script in sess.
func (t *Tab) askPermissions(ctx context.Context, sess *chromedp.Target) error {
	if _, err := cdp.Call(ctx, sess, runtime.AddBinding, runtime.AddBindingParams{Name: permBinding}); err != nil {
		return fmt.Errorf("ask permissions: %w", err)
	}
	if _, err := cdp.Call(ctx, sess, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: permAskJS, RunImmediately: new(true)}); err != nil {
		return fmt.Errorf("ask permissions: %w", err)
	}
	return nil
}

// topOriginJS is the origin of a document's top page: its own, or the
// last of location.ancestorOrigins (a Location's own property, which the
// page cannot replace).
const topOriginJS = `(() => { const a = location.ancestorOrigins; return a && a.length ? a[a.length - 1] : location.origin })()`

// askable are the permissions the page script asks about.
var askable = map[string]bool{"geolocation": true, "notifications": true, "camera": true, "microphone": true}

// permissionAsked runs in sess's read loop when a page reports a request;
// the request is checked in a goroutine, which may call the page.
func (t *Tab) permissionAsked(sess *chromedp.Target, ev *runtime.EventBindingCalled) {
	var p PermissionAsk
	if err := json.Unmarshal([]byte(ev.Payload), &p); err != nil || len(p.Names) == 0 {
		return // not the script's: a page calling the binding itself
	}
	for _, n := range p.Names {
		if !askable[n] {
			return
		}
	}
	go t.holdPermAsk(&openPermAsk{p: p, sess: sess, ctx: ev.ExecutionContextID})
}

// holdPermAsk holds a request for the tab's holder, under the origin of
// the document that made it: the binding is the page's to call, so what
// it says of its origin is not taken on trust.
func (t *Tab) holdPermAsk(op *openPermAsk) {
	ctx, cancel := context.WithTimeout(t.dead, t.b.opts.CallTimeout)
	defer cancel()
	// A frame's request is its top page's, as Chrome delegates it (an
	// iframe allowed a permission uses the page's grant): the top origin
	// is the last of the browser's own ancestorOrigins.
	res, err := cdp.Call(ctx, op.sess, runtime.Evaluate, runtime.EvaluateParams{Expression: topOriginJS, ContextID: op.ctx, ReturnByValue: new(true), Silent: new(true)})
	if err != nil || res.Result == nil {
		return // the document went, and its request with it
	}
	// A document without an origin to grant (about:, data:) or in a tab
	// someone leased is not held: the real API answers by the settings.
	if json.Unmarshal(res.Result.Value, &op.p.Origin) != nil || !strings.Contains(op.p.Origin, "://") || t.Info().Owner != "" {
		t.releasePermAsk(op)
		return
	}
	t.perm.mu.Lock()
	t.perm.pending = append(t.perm.pending, op)
	t.perm.mu.Unlock()
	t.b.emit(Event{Kind: PermissionAsked, Tab: t.Info(), Permission: &op.p})
}

// PermissionAsks returns the tab's requests waiting for an answer.
func (t *Tab) PermissionAsks() []PermissionAsk {
	t.perm.mu.Lock()
	defer t.perm.mu.Unlock()
	out := make([]PermissionAsk, 0, len(t.perm.pending))
	for _, op := range t.perm.pending {
		out = append(out, op.p)
	}
	return out
}

// AnswerPermission lets the waiting request id go on, answered by the
// permissions as they are set now. ErrNoChallenge when none waits with
// that id (answered already, or its page gone).
func (t *Tab) AnswerPermission(ctx context.Context, id int) error {
	cctx, cancel, err := t.beginTab(ctx)
	if err != nil {
		return fmt.Errorf("answer the permission request: %w", err)
	}
	defer cancel()
	t.perm.mu.Lock()
	var op *openPermAsk
	for i, p := range t.perm.pending {
		if p.p.ID == id {
			op = p
			t.perm.pending = append(t.perm.pending[:i], t.perm.pending[i+1:]...)
			break
		}
	}
	t.perm.mu.Unlock()
	if op == nil {
		return fmt.Errorf("answer the permission request %d: %w", id, ErrNoChallenge)
	}
	if err := t.resolvePermAsk(cctx, op); err != nil {
		return fmt.Errorf("answer the permission request: %w", t.fail(cctx, err))
	}
	t.b.emit(Event{Kind: PermissionAnswered, Tab: t.Info(), Permission: &op.p})
	return nil
}

// releasePermAsk lets a leased tab's request go on at once; nobody waits
// on it, so a failure (the page gone) is logged.
func (t *Tab) releasePermAsk(op *openPermAsk) {
	ctx, cancel := context.WithTimeout(t.dead, t.b.opts.CallTimeout)
	defer cancel()
	if err := t.resolvePermAsk(ctx, op); err != nil && context.Cause(t.dead) == nil {
		t.b.opts.Logf("tab %s: let the permission request go: %v", t.id, err)
	}
}

func (t *Tab) resolvePermAsk(ctx context.Context, op *openPermAsk) error {
	_, err := cdp.Call(ctx, op.sess, runtime.Evaluate, runtime.EvaluateParams{
		Expression: fmt.Sprintf("window.__vroomPermissions && window.__vroomPermissions(%d)", op.p.ID), ContextID: op.ctx, Silent: new(true),
	})
	return err
}

// dropPermAsks forgets the requests of sess's documents once they went
// (a navigation clears its contexts): their promises went with them.
func (t *Tab) dropPermAsks(sess *chromedp.Target) {
	t.perm.mu.Lock()
	var gone []PermissionAsk
	kept := t.perm.pending[:0]
	for _, op := range t.perm.pending {
		if op.sess != sess {
			kept = append(kept, op)
		} else {
			gone = append(gone, op.p)
		}
	}
	t.perm.pending = kept
	t.perm.mu.Unlock()
	for i := range gone {
		t.b.emit(Event{Kind: PermissionAnswered, Tab: t.Info(), Permission: &gone[i]})
	}
}
