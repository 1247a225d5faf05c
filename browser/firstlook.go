package browser

import (
	"context"
	"encoding/json"
	neturl "net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// lookBinding is how a walker installed as its document started sends the
// tab the look it took once the document loaded (firstlook.js). Only the
// walker's world has it.
const lookBinding = "__vroomLook"

// lookWait bounds the wait, after a load, for the look its document
// takes: it is due in the task after the load's, so a page that takes
// longer is busy, and is looked at the usual way.
const lookWait = 500 * time.Millisecond

// lookMsg is what the walker sends through lookBinding.
type lookMsg struct {
	Token string    `json:"token"`
	Obs   *frameObs `json:"obs"`
	Fav   string    `json:"fav"` // the document's icon, as refreshInfo reads it
}

// firstLook follows one navigation's new document for the look it takes
// of itself after its load.
type firstLook struct {
	script page.ScriptIdentifier // the plan, installed for new documents
	token  string
	key    string // the options the look is taken with
	seq    int64  // the look's number (nextLook)
	ctxID  runtime.ExecutionContextID
	obs    *frameObs
	fav    string
	// before is the tab's info when the navigation began: what the
	// browser reported after it is as new as the look, or newer.
	before TabInfo
}

// planLook installs, before a navigation the tab starts, the plan of the
// new document's first look (firstlook.js). Without it (a page that
// predates the walker, a failed call) the new page is looked at the usual
// way. Caller holds t.op.
func (t *Tab) planLook(ctx context.Context, a Action) *firstLook {
	if !t.netOn[t.target()] {
		return nil
	}
	t.sweepPlans()
	o := t.lookOpts.norm()
	args := observeArgs(o)
	args["nextRef"] = t.nextRef
	fl := &firstLook{key: o.key(), token: strconv.FormatInt(time.Now().UnixNano(), 36), seq: t.nextLook(), before: t.Info()}
	args["seq"] = fl.seq
	url := ""
	if a.Kind == ActNavigate {
		if u, err := neturl.Parse(a.URL); err == nil {
			if u.Path == "" && (u.Scheme == "http" || u.Scheme == "https") {
				u.Path = "/" // as location.href has it
			}
			url = u.String()
		}
	}
	plan, err := json.Marshal(map[string]any{"token": fl.token, "args": args, "url": url})
	if err != nil {
		return nil
	}
	res, err := cdp.Call(ctx, t.target(), page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: "globalThis.__vroom && __vroom.planLook(" + string(plan) + ")", WorldName: worldName,
	})
	if err != nil {
		return nil
	}
	fl.script = res.Identifier
	// The look brings the tab's title and icon: the load's own read of
	// them would reach the renderer beside the new page's first input.
	t.lookPending.Store(true)
	return fl
}

// planSweep is how long the plan of a settled navigation stays installed
// when no later navigation removes it with its own plan. Removing it at
// once is a call through the browser to the renderer just as the new
// page's first input is on its way, which then waits behind it.
const planSweep = 2 * time.Second

// stalePlans are the plans of settled navigations not yet removed.
type stalePlans struct {
	mu    sync.Mutex
	ids   []page.ScriptIdentifier
	sweep *time.Timer
}

// unplan has the plan of a settled navigation removed with the next
// navigation's plan, or planSweep later. Until then a document that
// starts finds a plan for another URL, or takes a look nobody waits for,
// whose refs the walker keeps counting. The tab's title and icon come
// from the look, or, when none came, are read as after any load.
func (t *Tab) unplan(fl *firstLook) {
	if fl == nil {
		return
	}
	t.lookPending.Store(false)
	if fl.obs != nil {
		t.lookInfo(fl)
	} else {
		go t.refreshInfo(true)
	}
	t.plans.mu.Lock()
	defer t.plans.mu.Unlock()
	t.plans.ids = append(t.plans.ids, fl.script)
	if t.plans.sweep == nil {
		t.plans.sweep = time.AfterFunc(planSweep, t.sweepPlans)
	}
}

// sweepPlans removes the stale plans, in the background.
func (t *Tab) sweepPlans() {
	t.plans.mu.Lock()
	ids := t.plans.ids
	t.plans.ids = nil
	if t.plans.sweep != nil {
		t.plans.sweep.Stop()
		t.plans.sweep = nil
	}
	t.plans.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(t.dead, t.b.opts.CallTimeout)
		defer cancel()
		for _, id := range ids {
			_, err := cdp.Call(ctx, t.target(), page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: id})
			if err != nil && ctx.Err() == nil {
				t.b.opts.Logf("tab %s: remove a look's plan: %v", t.id, err)
			}
		}
	}()
}

// heard keeps the look a message of lookBinding carries when it is the one
// planned. Caller holds t.op.
func (t *Tab) heard(fl *firstLook, v jsonv2.Value) {
	var e runtime.EventBindingCalled
	if fl == nil || jsonv2.Unmarshal(v, &e) != nil || e.Name != lookBinding {
		return
	}
	var m lookMsg
	if json.Unmarshal([]byte(e.Payload), &m) != nil || m.Token != fl.token || m.Obs == nil || m.Obs.Err != "" {
		return
	}
	fl.obs, fl.ctxID, fl.fav = m.Obs, e.ExecutionContextID, m.Fav
	// The refs it handed out are taken, used or not.
	t.nextRef = max(t.nextRef, m.Obs.NextRef)
}

// awaitLook waits, after the load, for the look the loaded document
// takes, and reports whether it came.
func (t *Tab) awaitLook(ctx context.Context, fl *firstLook, ev *navEvents) bool {
	if fl == nil {
		return false
	}
	timer := time.NewTimer(lookWait)
	defer timer.Stop()
	for fl.obs == nil {
		select {
		case v, ok := <-ev.look:
			if !ok {
				return false
			}
			t.heard(fl, v)
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// tookLook makes what the look needs known without asking the page: the
// new document's world (the one the look came from) and, when no frame
// came or went since the top frame navigated, the frame list; it returns
// the top frame, or nil when the frames are not known and the look is not
// used.
func (t *Tab) tookLook(fl *firstLook) *cdp.Frame {
	t.topMu.Lock()
	top, gen := t.lastTop, t.lastTopGen
	t.topMu.Unlock()
	if top == nil || gen != t.frameGen.Load() || fl.obs.URL != top.URL+top.URLFragment {
		return nil
	}
	t.keepFrames([]*cdp.Frame{top}, gen, true)
	w := &world{frame: top.ID, loader: top.LoaderID, ctxID: fl.ctxID, sess: t.target(), preinstalled: true}
	w.booted.Store(true)
	t.worlds[top.ID] = w
	t.usedWorld(w)
	t.keep(top.LoaderID, fl.key, fl.obs, fl.seq)
	// The tab says where it is as soon as its caller hears: the browser's
	// own report of the title comes later.
	t.lookInfo(fl)
	return top
}

// lookInfo is the tab's info as the document's own look saw it, where the
// browser has not told of the new document yet: a URL or title it reported
// since the navigation began (a script's replaceState, a title set after
// the load, heard before the look was read) is not taken back. The title
// Chromium gives a page before its own (its address) is no title.
func (t *Tab) lookInfo(fl *firstLook) {
	title, url := fl.obs.Title, fl.obs.URL
	t.update(func(ti *TabInfo) bool {
		ch := ti.Favicon != fl.fav
		ti.Favicon = fl.fav
		if ti.URL == fl.before.URL && ti.URL != url {
			ti.URL, ch = url, true
		}
		if title != "" && (ti.Title == fl.before.Title || addressTitle(*ti)) && ti.Title != title {
			ti.Title, ch = title, true
		}
		return ch
	})
}

// addressTitle reports whether ti's title is its address, as Chromium
// shows a page that has not given one.
func addressTitle(ti TabInfo) bool {
	_, rest, ok := strings.Cut(ti.URL, "://")
	return ti.Title == ti.URL || ok && ti.Title == rest
}

// pushedLook is a look at the top frame taken with an action's last call
// to the page (the load's, the settle's), until a look of the same
// options at that document uses it.
type pushedLook struct {
	loader cdp.LoaderID
	key    string
	obs    *frameObs
	seq    int64 // the look's number, which a change after it reports
	at     time.Time
}

// lookFresh is how long after it was taken such a look stands for the
// page, while the page reports no change since: the caller that asks for
// it right after the action gets it, one that comes back later looks
// again.
const lookFresh = 250 * time.Millisecond

// nextLook numbers a look taken for a caller; the walker that takes it
// reports, through lookBinding, the first change the page makes after
// it (firstlook.js), and from then on the look does not stand for the
// page. Caller holds t.op.
func (t *Tab) nextLook() int64 {
	t.lookSeq++
	return t.lookSeq
}

// lookChanged takes the walker's report of a change after look seq; heard
// in the tab session's read loop, its one writer, so before any answer
// the page sent later.
func (t *Tab) lookChanged(sess *chromedp.Target, ev *runtime.EventBindingCalled) {
	var m struct {
		Changed int64 `json:"changed"`
	}
	if sess != t.target() || ev.Name != lookBinding || json.Unmarshal([]byte(ev.Payload), &m) != nil {
		return
	}
	if m.Changed > t.changedLook.Load() {
		t.changedLook.Store(m.Changed)
	}
}

// keep makes obs, look seq, the look the next look at loader with options
// key uses.
func (t *Tab) keep(loader cdp.LoaderID, key string, obs *frameObs, seq int64) {
	t.looked = &pushedLook{loader: loader, key: key, obs: obs, seq: seq, at: time.Now()}
	// The refs it handed out are taken, used or not.
	t.nextRef = max(t.nextRef, obs.NextRef)
}

// takeLook returns the look taken with the action for a look with options
// key at document loader; once.
func (t *Tab) takeLook(loader cdp.LoaderID, key string) *frameObs {
	l := t.looked
	t.looked = nil
	if l == nil || l.loader != loader || l.key != key || time.Since(l.at) > lookFresh || t.changedLook.Load() >= l.seq {
		return nil
	}
	return l.obs
}

// lookArgs are the arguments of the look a settle in the top frame takes
// in its own call, or nil where the settle does not: in a frame, or where
// the caller has never looked (it may not want to).
func (t *Tab) lookArgs(s *step) map[string]any {
	if !t.ownTop(s.w) || !t.looks {
		return nil
	}
	args := observeArgs(t.lookOpts.norm())
	args["nextRef"] = t.nextRef
	s.lookSeq = t.nextLook()
	args["seq"] = s.lookSeq
	return args
}

// keepLook keeps the look the settle took, if it took one, while the page
// is the one the action acted on.
func (t *Tab) keepLook(s *step, st *settled) {
	if st.Look == nil || st.Look.Err != "" {
		st.Look = nil
		return
	}
	t.keep(s.w.loader, t.lookOpts.norm().key(), st.Look, s.lookSeq)
	st.Look = nil
}
