package browser

import (
	"context"
	"encoding/json"

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

// resumeWorker sets up a worker waiting at path under parent and lets
// it run.
func (t *Tab) resumeWorker(parent *chromedp.Target, path []target.SessionID) {
	ctx, cancel := context.WithTimeout(t.dead, t.b.opts.CallTimeout)
	defer cancel()
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

// childMessage is a message of a child session's, as its parent hears it.
type childMessage struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// watchWorkers hears what the workers under sess say: their refusals,
// and the workers they start, which wait for resumeWorker.
func (t *Tab) watchWorkers(sess *chromedp.Target) {
	msgs, stop := sess.Subscribe("Target.receivedMessageFromTarget")
	go func() {
		defer stop()
		for {
			select {
			case v, ok := <-msgs:
				if !ok {
					return
				}
				var ev struct {
					SessionID target.SessionID `json:"sessionId"`
					Message   string           `json:"message"`
				}
				if jsonv2.Unmarshal(v, &ev) == nil {
					t.fromWorker(sess, []target.SessionID{ev.SessionID}, ev.Message)
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
