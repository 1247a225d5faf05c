package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A dedicated worker's requests are its page's, held by the tab's Fetch;
// its sockets are its own global's. Auto-attach makes each worker wait
// for the debugger on a session of the session that attached it (the
// tab's, a frame's; a worker's, for the workers it starts), which is not
// flat: chromedp routes no message of a session it did not open, so it
// is spoken to through its parents (sendChild) and heard in their
// Target.receivedMessageFromTarget events. A waiting worker has its
// global already and runs the commands it is sent, in order, before the
// script it waits to start: a guarded tab's worker gets the wrapper its
// documents have (sockets.go), and holds the workers it starts in turn.

// workerAt is where a worker's session is: the path of child sessions
// down to it from a session of the tab's.
type workerAt struct {
	parent *chromedp.Target
	path   []target.SessionID
}

// key names a worker's path; a worker's workers' keys start with it.
func (w workerAt) key() string {
	k := fmt.Sprintf("%p", w.parent)
	for _, id := range w.path {
		k += "/" + string(id)
	}
	return k
}

// resumeWorker sets up a worker waiting at path under parent and lets
// it run. It is listed, so a guard installed later wraps it too.
func (t *Tab) resumeWorker(parent *chromedp.Target, path []target.SessionID) {
	ctx, cancel := context.WithTimeout(t.dead, t.b.opts.CallTimeout)
	defer cancel()
	w := workerAt{parent: parent, path: path}
	t.auth.mu.Lock()
	if t.icpt.workers == nil {
		t.icpt.workers = map[string]workerAt{}
	}
	t.icpt.workers[w.key()] = w
	t.auth.mu.Unlock()
	if t.guarded() {
		if err := t.wrapWorker(ctx, parent, path); err != nil && context.Cause(t.dead) == nil {
			t.b.opts.Logf("tab %s: wrap a worker: %v", t.id, err)
		}
	}
	if err := sendChild(ctx, parent, path, "Runtime.runIfWaitingForDebugger", struct{}{}); err != nil && context.Cause(t.dead) == nil {
		t.b.opts.Logf("tab %s: resume a worker: %v", t.id, err)
	}
}

// wrapWorker installs the guard's wrapper in a worker waiting to start,
// and makes the workers it starts wait in turn.
func (t *Tab) wrapWorker(ctx context.Context, parent *chromedp.Target, path []target.SessionID) error {
	t.auth.mu.Lock()
	list, err := json.Marshal(append([]string{}, t.icpt.socks.hosts...))
	t.auth.mu.Unlock()
	if err != nil {
		return err
	}
	if err := sendChild(ctx, parent, path, "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": false}); err != nil {
		return err
	}
	if err := sendChild(ctx, parent, path, "Runtime.addBinding", map[string]any{"name": refusalBinding}); err != nil {
		return err
	}
	return sendChild(ctx, parent, path, "Runtime.evaluate", map[string]any{"expression": socketShim(list), "silent": true})
}

// wrapWorkers installs the guard's wrapper in the tab's running workers,
// or gives it their new hosts. A worker that fails is logged: it may
// have ended.
func (t *Tab) wrapWorkers(ctx context.Context) {
	t.auth.mu.Lock()
	ws := make([]workerAt, 0, len(t.icpt.workers))
	for _, w := range t.icpt.workers {
		ws = append(ws, w)
	}
	t.auth.mu.Unlock()
	for _, w := range ws {
		if err := t.wrapWorker(ctx, w.parent, w.path); err != nil {
			t.b.opts.Logf("tab %s: wrap a worker: %v", t.id, err)
		}
	}
}

// workerGone forgets the worker at key and the workers it started.
func (t *Tab) workerGone(key string) {
	t.auth.mu.Lock()
	defer t.auth.mu.Unlock()
	for k := range t.icpt.workers {
		if k == key || strings.HasPrefix(k, key+"/") {
			delete(t.icpt.workers, k)
		}
	}
}

// childMessage is a message of a child session's, as its parent hears it.
type childMessage struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// watchWorkers hears what the workers under sess say: their refusals,
// the workers they start, which wait for resumeWorker, and their end.
func (t *Tab) watchWorkers(sess *chromedp.Target) {
	msgs, stop := sess.Subscribe("Target.receivedMessageFromTarget")
	gone, stopGone := sess.Subscribe(target.DetachedFromTarget.Method)
	go func() {
		defer stop()
		defer stopGone()
		for {
			var ev struct {
				SessionID target.SessionID `json:"sessionId"`
				Message   string           `json:"message"`
			}
			select {
			case v, ok := <-msgs:
				if !ok {
					return
				}
				if jsonv2.Unmarshal(v, &ev) == nil {
					t.fromWorker(sess, []target.SessionID{ev.SessionID}, ev.Message)
				}
			case v, ok := <-gone:
				if !ok {
					return
				}
				if jsonv2.Unmarshal(v, &ev) == nil {
					t.workerGone(workerAt{parent: sess, path: []target.SessionID{ev.SessionID}}.key())
				}
			case <-t.dead.Done():
				return
			}
		}
	}()
}

// fromWorker handles a message of the worker at path: a binding's call,
// a worker it started, or a message of one of its own workers, unwrapped.
func (t *Tab) fromWorker(parent *chromedp.Target, path []target.SessionID, raw string) {
	var m childMessage
	if json.Unmarshal([]byte(raw), &m) != nil {
		return
	}
	switch m.Method {
	case "Runtime.bindingCalled":
		var b runtime.EventBindingCalled
		if json.Unmarshal(m.Params, &b) == nil {
			t.onRefusal(&b)
		}
	case "Target.attachedToTarget":
		var a struct {
			SessionID  target.SessionID `json:"sessionId"`
			TargetInfo struct {
				Type string `json:"type"`
			} `json:"targetInfo"`
		}
		if json.Unmarshal(m.Params, &a) == nil && a.TargetInfo.Type == "worker" {
			go t.resumeWorker(parent, append(append([]target.SessionID{}, path...), a.SessionID))
		}
	case "Target.detachedFromTarget":
		var d struct {
			SessionID target.SessionID `json:"sessionId"`
		}
		if json.Unmarshal(m.Params, &d) == nil {
			t.workerGone(workerAt{parent: parent, path: append(append([]target.SessionID{}, path...), d.SessionID)}.key())
		}
	case "Target.receivedMessageFromTarget":
		var inner struct {
			SessionID target.SessionID `json:"sessionId"`
			Message   string           `json:"message"`
		}
		if json.Unmarshal(m.Params, &inner) == nil && len(path) < 8 { // workers nest few deep; a loop must not spin
			t.fromWorker(parent, append(append([]target.SessionID{}, path...), inner.SessionID), inner.Message)
		}
	}
}
