package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/overlay"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Tab is one browser tab. All its methods are safe for concurrent use;
// observations and actions on one tab run one at a time.
type Tab struct {
	b      *Browser
	s      *session
	id     string
	ctx    context.Context // chromedp tab context
	cancel context.CancelFunc

	mu      sync.Mutex
	info    TabInfo
	lease   *Lease
	dead    context.Context
	kill0   context.CancelCauseFunc
	removed bool
	// announced is set once the tab's opened event went out, so no
	// update precedes it.
	announced bool

	op     sync.Mutex // serialises observe and act
	worlds map[cdp.FrameID]*world
	// oopifs are sessions attached to cross-site iframes that run in
	// their own process (site isolation), and sess maps each frame that
	// lives in one of them to its session.
	oopifs  map[target.ID]*chromedp.Target
	sess    map[cdp.FrameID]*chromedp.Target
	nextRef int
	refs    map[string]refLoc
	// topDoc and prevDoc are the last two top-level documents; refs of
	// older ones are forgotten, so the map does not grow with history
	// while a ref from just before a navigation still reads as stale.
	topDoc, prevDoc cdp.LoaderID
	version         int
	bases           baselines
	// frameGen counts the frame events the tab's sessions heard (a frame
	// attached, detached or navigated; an out-of-process frame attached
	// or detached); framesAt is a frame list known at one count without
	// asking the page (cachedFrames).
	frameGen atomic.Int64
	framesAt struct {
		list []*cdp.Frame
		gen  int64
	}
	// lookOpts are the options of the tab's last look, which a new
	// document's own first look is taken with; looked is that look until
	// used (firstlook.go); looks is set once a caller asked for such a
	// look. All under op.
	lookOpts ObserveOptions
	looks    bool // a look with lookOpts was asked for
	looked   *pushedLook
	plans    stalePlans // of navigations settled (firstlook.go)
	// masked are the masked fields' values actions read (masked.go),
	// under a lock of its own: the guard reads them inside an action;
	// topWorld is the top frame's world last used, for its read.
	masked   maskedFields
	topWorld atomic.Pointer[world]
	// lookPending is set while a navigation's document is to send its
	// own look, which carries the tab's title and icon.
	lookPending atomic.Bool
	// lookSeq numbers the looks taken for a caller (under op); changedLook
	// is the highest of them the page reported a change after, heard in
	// the session's read loop.
	lookSeq     int64
	changedLook atomic.Int64
	// lastTop is the top frame as it last navigated, and lastTopGen the
	// frame event count just after: with no frame event since, the frame
	// list is that frame alone.
	topMu      sync.Mutex
	lastTop    *cdp.Frame
	lastTopGen int64
	// netOn marks the sessions whose pages carry netwatch.js.
	netOn map[*chromedp.Target]bool

	sc screencaster
	// pv is the tab's state while a person's view serves it (ServePerson).
	pv personView

	// held counts the document requests the tab's guard holds while
	// their check runs: an action awaiting the navigation it caused
	// waits as long as a check does (a person may be deciding).
	held atomic.Int32
	// ready is closed once attach has set the tab up: a request its page
	// sends before is checked after (targets.go).
	ready chan struct{}
	// busy is set when a call found the page's script busy (busy.go): a
	// navigation from it stops the script first.
	busy atomic.Bool

	// waiting, when set (by tests), is called as an action starts its
	// after-action wait, so a test can act on a call that is pending.
	waiting func()

	// dlg is the JavaScript dialog state; notes what the pages asked of
	// the browser lately, for the action under way to report.
	dlg   dialogs
	fc    choosers
	notes pageNotes
	dlo   atomic.Pointer[DownloadOptions] // the holder's, when set
	// fwdButtons are the buttons a person's forwarded input holds down
	// (CDP's bits: left 1, right 2, middle 4).
	fwdButtons atomic.Int64
	auth       auths
	icpt       intercept // under auth.mu
	mute       muteState
	perm       permAsks
}

type world struct {
	frame  cdp.FrameID
	loader cdp.LoaderID
	ctxID  runtime.ExecutionContextID
	sess   *chromedp.Target // the main target, or an out-of-process iframe's

	// booted is set once the walker runs in the world. It is sent with
	// the world's first call, not on its own: one round trip fewer for
	// every document and frame. preinstalled: the document may have
	// started with the walker (instrument), so the first call looks for it
	// before sending it.
	booted       atomic.Bool
	preinstalled bool
}

// refLoc remembers which document a ref was handed out in, so a ref from
// before a navigation is reported stale rather than silently re-aimed.
type refLoc struct {
	frame  cdp.FrameID
	loader cdp.LoaderID
	top    cdp.LoaderID // the top-level document it was observed in
}

func newTab(b *Browser, s *session, id string, ctx context.Context, cancel context.CancelFunc) *Tab {
	dead, kill := context.WithCancelCause(context.Background())
	t := &Tab{b: b, s: s, id: id, ctx: ctx, cancel: cancel, dead: dead, kill0: kill,
		worlds: map[cdp.FrameID]*world{}, refs: map[string]refLoc{}, nextRef: 1,
		oopifs: map[target.ID]*chromedp.Target{}, sess: map[cdp.FrameID]*chromedp.Target{},
		netOn: map[*chromedp.Target]bool{}}
	t.info = TabInfo{ID: id}
	t.ready = make(chan struct{})
	t.sc.t = t
	t.dlg.init()
	t.auth.init()
	return t
}

// ID is the tab's stable identifier (its CDP target id).
func (t *Tab) ID() string { return t.id }

// Info returns the tab's current description.
func (t *Tab) Info() TabInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	info := t.info
	if t.lease != nil {
		info.Owner = t.lease.owner
	}
	return info
}

func (t *Tab) update(f func(*TabInfo) bool) {
	t.mu.Lock()
	changed := f(&t.info)
	removed, announced := t.removed, t.announced
	t.mu.Unlock()
	if changed && !removed && announced {
		t.b.emit(Event{Kind: TabUpdated, Tab: t.Info()})
	}
}

func (t *Tab) kill(err error) {
	t.mu.Lock()
	t.removed = true
	t.mu.Unlock()
	t.kill0(err)
	t.sc.stopAll()
	// Cancelling waits for chromedp's target goroutines, which need the
	// read loop this may be running in.
	go t.cancel()
}

func (t *Tab) crashed(err error) {
	t.mu.Lock()
	t.info.Crashed = true
	t.mu.Unlock()
	t.kill0(err)
	t.b.emit(Event{Kind: TabCrashed, Tab: t.Info(), Err: err.Error()})
}

func (t *Tab) target() *chromedp.Target { return chromedp.FromContext(t.ctx).Target }

// emulate sets how the tab presents itself to its pages and takes input:
// its size, focus, scrollbars and unbuffered input.
func (t *Tab) emulate(ctx context.Context, tg *chromedp.Target) error {
	if _, err := cdp.Call(ctx, tg, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(t.b.opts.Width), Height: int64(t.b.opts.Height), DeviceScaleFactor: t.b.opts.Scale,
	}); err != nil {
		return err
	}
	// Every tab behaves as the focused one: agents work in many at once,
	// and a page that thinks it lost focus may close menus or pause.
	if _, err := cdp.Call(ctx, tg, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		return err
	}
	// No scrollbars take a strip of an agent's viewport or screenshots;
	// a person's tab shows them while a view serves it (ServePerson).
	if _, err := cdp.Call(ctx, tg, emulation.SetScrollbarsHidden, emulation.SetScrollbarsHiddenParams{Hidden: true}); err != nil {
		return err
	}
	// With the overlay agent on, Blink hands mouse moves and wheel turns
	// to the page at once instead of at its next animation frame (as it
	// does for a debugger that must paint while stopped in a handler): a
	// click's move to its target, which its hover check waits for, costs
	// well under a millisecond rather than up to a frame.
	if _, err := cdp.Call(ctx, tg, overlay.Enable, cdp.Empty{}); err != nil {
		return fmt.Errorf("unbuffered input: %w", err)
	}
	return quietDomains(ctx, tg)
}

// quietDomains turns off the CSS and DOM agents chromedp enables on every
// session it attaches: nothing here reads their events or their node ids
// (the DOM calls made take backend node ids), the CSS agent tracks every
// style sheet of every document, and on every new document chromedp asks
// the DOM agent for the whole tree, twice, while the page's first action
// waits behind it. The overlay agent, enabled before, stays on without
// the DOM agent, and input stays unbuffered.
func quietDomains(ctx context.Context, sess *chromedp.Target) error {
	if _, err := cdp.Call(ctx, sess, css.Disable, cdp.Empty{}); err != nil {
		return fmt.Errorf("disable the CSS agent: %w", err)
	}
	if _, err := cdp.Call(ctx, sess, dom.Disable, cdp.Empty{}); err != nil {
		return fmt.Errorf("disable the DOM agent: %w", err)
	}
	return nil
}

func (t *Tab) attach(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(t.ctx) }()
	select {
	case err := <-done:
		if err != nil {
			return err
		}
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := chromedp.Listen(t.ctx, t.onEvent); err != nil {
		return err
	}
	tg := t.target()
	if err := t.emulate(ctx, tg); err != nil {
		return err
	}
	if err := t.interceptChoosers(ctx, tg); err != nil {
		return err
	}
	if t.b.opts.AskPermissions {
		if err := t.askPermissions(ctx, tg); err != nil {
			return err
		}
	}
	if err := t.startIntercept(ctx); err != nil {
		return err
	}
	if t.guarded() {
		// A window opened from a guarded tab, with its opener's guard.
		if err := t.applySockets(ctx); err != nil {
			return err
		}
	}
	if err := t.holdFrames(ctx); err != nil {
		return err
	}
	// Counting a page's requests from its first document on, so a wait for
	// idle knows those it started before anyone looked. Not fatal: the
	// first world of the tab tries again.
	t.op.Lock()
	if _, err := t.instrument(ctx, tg); err != nil {
		t.b.opts.Logf("tab %s: %v", t.id, err)
	}
	t.op.Unlock()
	// Set up: the guard may check its requests (targets.go).
	close(t.ready)
	// Without a detach channel, a tab closed elsewhere is still dropped on
	// its TargetDestroyed event.
	if ch, err := chromedp.Detached(t.ctx); err == nil {
		go func() {
			select {
			case <-ch:
				t.b.drop(t.id, fmt.Errorf("%w: detached", ErrTabClosed))
			case <-t.dead.Done():
			}
		}()
	}
	// The title and URL are a head start; target events fill them in
	// anyway, so a failure here costs nothing.
	if info, err := cdp.Call(ctx, chromedp.FromContext(t.s.ctx).Browser, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: target.ID(t.id)}); err == nil && info.TargetInfo != nil {
		t.mu.Lock()
		t.info.URL, t.info.Title = info.TargetInfo.URL, info.TargetInfo.Title
		t.mu.Unlock()
	}
	return nil
}

// begin is beginTab for a call that needs the page: while a dialog is
// held the page runs nothing, so the call fails at once with its
// *DialogError, and one held during the call ends it with that cause.
func (t *Tab) begin(ctx context.Context) (context.Context, context.CancelFunc, error) {
	cctx, cancel, err := t.beginTab(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := t.blocked(); err != nil {
		cancel()
		return nil, nil, err
	}
	ictx, done := t.interruptible(cctx)
	return ictx, func() { done(); cancel() }, nil
}

// beginTab checks the lease and returns a context for one call that ends at
// the caller's deadline (or CallTimeout), or when the tab dies, with the
// tab's failure as cause.
func (t *Tab) beginTab(ctx context.Context) (context.Context, context.CancelFunc, error) {
	t.mu.Lock()
	l := t.lease
	t.mu.Unlock()
	if l != nil && l.owner != OwnerFrom(ctx) {
		return nil, nil, &LeaseError{Tab: t.id, Holder: l.owner}
	}
	if err := context.Cause(t.dead); err != nil {
		return nil, nil, err
	}
	var cancelT context.CancelFunc = func() {}
	if _, ok := ctx.Deadline(); !ok {
		ctx, cancelT = context.WithTimeout(ctx, t.b.opts.CallTimeout)
	}
	cctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(t.dead, func() { cancel(context.Cause(t.dead)) })
	go t.watchBusy(cctx, cancel)
	return cctx, func() { stop(); cancel(nil); cancelT() }, nil
}

// fail maps an error from inside a call to the typed error a caller can
// act on: the tab's death beats the transport's wording.
func (t *Tab) fail(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cause := context.Cause(t.dead); cause != nil {
		if errors.Is(err, cause) {
			return err
		}
		return cause
	}
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) && !errors.Is(c, context.DeadlineExceeded) {
		return c
	}
	if errors.Is(err, chromedp.ErrTargetDetached) {
		return fmt.Errorf("%w: %w", ErrTabClosed, err)
	}
	if errors.Is(err, context.DeadlineExceeded) && t.b.Alive() {
		// The tab is alive and the browser answers, but the page did not
		// within the caller's deadline: say so, keeping the deadline.
		return fmt.Errorf("%w: %w", ErrUnresponsive, err)
	}
	return t.b.mapErr(err)
}

// Close closes the tab, whatever its page is doing: a held dialog, a
// "Leave site?" armed, a hung script.
func (t *Tab) Close(ctx context.Context) error {
	cctx, cancel, err := t.beginTab(ctx)
	if err != nil {
		if errors.Is(err, ErrTabCrashed) {
			cctx, cancel = context.WithTimeout(ctx, 5*time.Second)
		} else {
			return fmt.Errorf("close %s: %w", t.id, err)
		}
	}
	defer cancel()
	_, err = cdp.Call(cctx, chromedp.FromContext(t.s.ctx).Browser, target.CloseTarget, target.CloseTargetParams{TargetID: target.ID(t.id)})
	// The target can be gone before the reply comes (a page the browser
	// had to kill, one blocked in a loop): that is the close done.
	err = t.fail(cctx, err)
	t.b.drop(t.id, fmt.Errorf("%w: closed", ErrTabClosed))
	if err != nil && !errors.Is(err, ErrTabClosed) {
		return fmt.Errorf("close %s: %w", t.id, t.b.mapErr(err))
	}
	return nil
}

// Activate brings the tab to the front of its window.
func (t *Tab) Activate(ctx context.Context) error {
	cctx, cancel, err := t.beginTab(ctx)
	if err != nil {
		return fmt.Errorf("activate %s: %w", t.id, err)
	}
	defer cancel()
	if _, err := cdp.Call(cctx, chromedp.FromContext(t.s.ctx).Browser, target.ActivateTarget, target.ActivateTargetParams{TargetID: target.ID(t.id)}); err != nil {
		return fmt.Errorf("activate %s: %w", t.id, t.fail(cctx, err))
	}
	return nil
}

// oopif attaches (once) to an out-of-process iframe target.
func (t *Tab) oopif(ctx context.Context, id target.ID) (*chromedp.Target, error) {
	if s := t.oopifs[id]; s != nil {
		return s, nil
	}
	if s := t.frameSession(id); s != nil {
		// The session that held the frame from its start (targets.go).
		t.oopifs[id] = s
		return s, nil
	}
	// No cancel: the session lives as long as the tab, whose context
	// (t.ctx) ends it.
	octx, _ := chromedp.NewContext(t.ctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(octx) }()
	select {
	case err := <-done:
		if err != nil {
			return nil, err
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s := chromedp.FromContext(octx).Target
	t.oopifs[id] = s
	// A cross-site frame's dialogs block its own process: they are asked
	// on its session. Without the listener they go unseen, and only that
	// frame hangs.
	if err := chromedp.Listen(octx, func(ev any) { t.onAsk(s, ev) }); err != nil {
		t.b.opts.Logf("tab %s: listen to frame %s: %v", t.id, id, err)
	}
	return s, nil
}

// sessFor is the session that hosts a frame.
func (t *Tab) sessFor(id cdp.FrameID) *chromedp.Target {
	if s := t.sess[id]; s != nil {
		return s
	}
	return t.target()
}

// world returns the isolated world of a frame's current document, creating
// and priming it on first use. Caller holds t.op.
func (t *Tab) world(ctx context.Context, f *cdp.Frame) (*world, error) {
	if w := t.worlds[f.ID]; w != nil && w.loader == f.LoaderID {
		return w, nil
	}
	sess := t.sessFor(f.ID)
	fresh, err := t.instrument(ctx, sess)
	if err != nil {
		return nil, err
	}
	// A world of the name the walker was installed in is the same world:
	// the document's, with the walker in it.
	res, err := cdp.Call(ctx, sess, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: f.ID, WorldName: worldName})
	if err != nil {
		return nil, err
	}
	w := &world{frame: f.ID, loader: f.LoaderID, ctxID: res.ExecutionContextID, sess: sess, preinstalled: !fresh && f.ParentID == "" && sess == t.target()}
	t.worlds[f.ID] = w
	t.usedWorld(w)
	return w, nil
}

// evalIn evaluates expr in the world, awaiting promises, and decodes the
// JSON result into out (when non-nil).
func (t *Tab) evalIn(ctx context.Context, w *world, expr string, out any) error {
	res, err := evalBooting(ctx, w, expr)
	if err != nil {
		if strings.Contains(err.Error(), "Cannot find context") {
			delete(t.worlds, w.frame)
		}
		return err
	}
	if res.ExceptionDetails != nil {
		msg := res.ExceptionDetails.Text
		if res.ExceptionDetails.Exception != nil {
			msg += " " + res.ExceptionDetails.Exception.Description
		}
		return fmt.Errorf("page script: %s", msg)
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}

// mainWorld returns the world of the top frame.
func (t *Tab) mainWorld(ctx context.Context) (*world, *cdp.Frame, error) {
	f, err := t.topFrame(ctx)
	if err != nil {
		return nil, nil, err
	}
	w, err := t.world(ctx, f)
	return w, f, err
}

// release frees a remote object handle. A failure only pins the object
// until its document goes away, so it is logged, not returned.
func (t *Tab) release(ctx context.Context, sess *chromedp.Target, id runtime.RemoteObjectID) {
	if _, err := cdp.Call(ctx, sess, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: id}); err != nil && ctx.Err() == nil {
		t.b.opts.Logf("tab %s: release %s: %v", t.id, id, err)
	}
}
