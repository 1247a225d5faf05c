package browser

import (
	"context"
	"encoding/json"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A tab's events, handled in its CDP read loop: state changes, events
// emitted and goroutines started, never a CDP call of their own.

func (t *Tab) onEvent(ev any) {
	switch ev := ev.(type) {
	case *page.EventFrameStartedLoading:
		if t.isMain(ev.FrameID) {
			t.update(func(ti *TabInfo) bool { ch := !ti.Loading; ti.Loading = true; return ch })
		}
	case *page.EventFrameStoppedLoading:
		if t.isMain(ev.FrameID) {
			t.update(func(ti *TabInfo) bool { ch := ti.Loading; ti.Loading = false; return ch })
			go t.refreshInfo(false)
		}
	case *page.EventScreencastFrame:
		t.sc.frame(ev)
	default:
		t.onAsk(t.target(), ev)
	}
}

// onAsk handles what a page of session sess (the tab's, or an
// out-of-process iframe's) asks of the browser. It runs in that session's
// read loop.
func (t *Tab) onAsk(sess *chromedp.Target, ev any) {
	switch ev.(type) {
	case *page.EventFrameAttached, *page.EventFrameDetached, *page.EventFrameNavigated,
		*page.EventNavigatedWithinDocument, *target.EventAttachedToTarget, *target.EventDetachedFromTarget:
		// Heard in the session's read loop, before any answer that came
		// after it: a frame list read after an answer knows of it.
		t.frameGen.Add(1)
	}
	switch ev := ev.(type) {
	case *page.EventJavascriptDialogOpening:
		t.dialogOpening(sess, ev)
	case *page.EventJavascriptDialogClosed:
		t.dialogClosed(ev)
	case *page.EventFileChooserOpened:
		t.chooserOpened(sess, ev)
	case *fetch.EventAuthRequired:
		t.authRequired(sess, ev)
	case *runtime.EventBindingCalled:
		if ev.Name == permBinding {
			t.permissionAsked(sess, ev)
		} else if ev.Name == lookBinding {
			t.lookChanged(sess, ev)
		} else if sess != t.target() {
			t.personFrameEvent(sess, ev)
		}
		t.onRefusal(ev)
	case *runtime.EventExecutionContextCreated:
		if sess != t.target() {
			t.personFrameEvent(sess, ev)
		}
	case *runtime.EventExecutionContextsCleared:
		t.dropPermAsks(sess)
	case *page.EventFrameNavigated:
		if ev.Frame != nil {
			t.masked.navigated(ev.Frame.ID, ev.Frame.LoaderID)
		}
		if sess == t.target() && ev.Frame != nil && ev.Frame.ParentID == "" {
			t.topMu.Lock()
			t.lastTop, t.lastTopGen = ev.Frame, t.frameGen.Load()
			t.topMu.Unlock()
			t.topCommitted()
		}
	case *page.EventWindowOpen:
		t.windowOpened(ev)
	case *page.EventFrameAttached:
		t.b.noteFrame(string(ev.FrameID), t.id)
	case *page.EventFrameDetached:
		t.b.noteFrame(string(ev.FrameID), "")
	}
}

func (t *Tab) isMain(id cdp.FrameID) bool {
	c := chromedp.FromContext(t.ctx)
	if c == nil || c.Target == nil {
		return false
	}
	// Without a parent frame id in the event, the top frame's id equals the
	// target id for page targets.
	return string(id) == t.id
}

// refreshInfo reads the favicon, title and URL once a load finishes; the
// browser's own target events can lag the document's title. Unless
// forced, not while the new document's own look is on its way with them.
func (t *Tab) refreshInfo(force bool) {
	if !force && t.lookPending.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(t.dead, 2*time.Second)
	defer cancel()
	res, err := cdp.Call(ctx, t.target(), runtime.Evaluate, runtime.EvaluateParams{
		Expression:    `(() => { const l = document.querySelector('link[rel~="icon"]'); return {fav: l ? l.href : (location.protocol.startsWith('http') ? location.origin + '/favicon.ico' : ''), title: document.title, url: location.href}; })()`,
		ReturnByValue: new(true), Silent: new(true),
	})
	// Best effort: a page navigating again cannot answer, and its next
	// load or target event brings the info anyway.
	if err != nil || res.Result == nil {
		return
	}
	var v struct{ Fav, Title, URL string }
	if json.Unmarshal(res.Result.Value, &v) == nil {
		t.update(func(ti *TabInfo) bool {
			if v.Title == "" {
				v.Title = ti.Title
			}
			ch := ti.Favicon != v.Fav || ti.Title != v.Title || ti.URL != v.URL
			ti.Favicon, ti.Title, ti.URL = v.Fav, v.Title, v.URL
			return ch
		})
	}
}
