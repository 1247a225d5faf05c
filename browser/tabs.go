package browser

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
)

// TabInfo is a compact description of a tab, safe to copy.
type TabInfo struct {
	ID      string `json:"id"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	Favicon string `json:"favicon,omitempty"`
	Loading bool   `json:"loading,omitempty"`
	// Owner holds the tab's lease, empty when nobody does.
	Owner string `json:"owner,omitempty"`
	// Opener is the tab that opened this one as a popup.
	Opener  string `json:"opener,omitempty"`
	Crashed bool   `json:"crashed,omitempty"`
}

// EventKind names what happened to a tab.
type EventKind string

// Event kinds.
const (
	TabOpened     EventKind = "opened"
	TabClosed     EventKind = "closed"
	TabUpdated    EventKind = "updated" // title, URL, favicon or loading changed
	TabPopup      EventKind = "popup"   // a page opened a popup; Opener names it
	TabCrashed    EventKind = "crashed"
	TabLeased     EventKind = "leased"
	TabReleased   EventKind = "released"
	BrowserClosed EventKind = "browser-closed"
	// DialogOpened: a page opened a JavaScript dialog (Event.Dialog); held
	// when its Held is set, until AnswerDialog. DialogClosed: it closed,
	// with its answer and who gave it.
	DialogOpened EventKind = "dialog-opened"
	DialogClosed EventKind = "dialog-closed"
	// FileChooserOpened: a page opened a file chooser (Event.Chooser),
	// intercepted; an upload without a ref answers it.
	FileChooserOpened EventKind = "file-chooser"
	// Download events carry Event.Download; progress coalesces per
	// download for a reader that falls behind.
	DownloadStarted  EventKind = "download-started"
	DownloadProgress EventKind = "download-progress"
	DownloadDone     EventKind = "download-done"
	DownloadFailed   EventKind = "download-failed"
	// AuthRequired: a site asks for credentials (Event.Auth), its request
	// waiting; AuthAnswered: answered, by whom, never with what.
	AuthRequired EventKind = "auth-required"
	AuthAnswered EventKind = "auth-answered"
	// PermissionAsked: a page asks for permissions (Event.Permission),
	// its request waiting, in a browser with Options.AskPermissions;
	// PermissionAnswered: it went on.
	PermissionAsked    EventKind = "permission-asked"
	PermissionAnswered EventKind = "permission-answered"
)

// Event is a change to the browser's tabs.
type Event struct {
	Kind EventKind `json:"kind"`
	Tab  TabInfo   `json:"tab"`
	// Opener names the opener of a TabPopup, and of a popup's TabClosed.
	Opener string `json:"opener,omitempty"`
	// UserGesture: the popup was opened by input to its opener (a click on
	// a link), not by the page's script alone.
	UserGesture bool   `json:"userGesture,omitempty"`
	Err         string `json:"err,omitempty"`
	// Dialog is the dialog of a DialogOpened or DialogClosed event.
	Dialog *Dialog `json:"dialog,omitempty"`
	// Chooser is the file chooser of a FileChooserOpened event.
	Chooser *FileChooser `json:"chooser,omitempty"`
	// Download is the download of a Download event.
	Download *Download `json:"download,omitempty"`
	// Auth is the challenge of an Auth event.
	Auth *AuthChallenge `json:"auth,omitempty"`
	// Permission is the request of a PermissionAsked or
	// PermissionAnswered event.
	Permission *PermissionAsk `json:"permission,omitempty"`
}

// subscriber queues events for one reader. Updates to the same tab
// coalesce (the newest state wins), so a slow reader never loses the final
// state of a tab nor an open, close or popup event, and the queue stays
// bounded by the number of tabs plus those lifecycle events.
type subscriber struct {
	mu     sync.Mutex
	queue  []Event
	wake   chan struct{}
	ch     chan Event
	done   chan struct{}
	once   sync.Once
	closed bool
}

func newSubscriber() *subscriber {
	s := &subscriber{wake: make(chan struct{}, 1), ch: make(chan Event), done: make(chan struct{})}
	go s.pump()
	return s
}

func (s *subscriber) push(ev Event) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if ev.Kind == TabUpdated || ev.Kind == DownloadProgress {
		for i := range s.queue {
			if supersedes(ev, s.queue[i]) {
				s.queue = append(s.queue[:i], s.queue[i+1:]...)
				break
			}
		}
	}
	s.queue = append(s.queue, ev)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// supersedes reports whether ev makes the queued old one stale: a newer
// update of the same tab, or newer progress of the same download.
func supersedes(ev, old Event) bool {
	if ev.Kind != old.Kind {
		return false
	}
	if ev.Kind == DownloadProgress {
		return ev.Download != nil && old.Download != nil && ev.Download.ID == old.Download.ID
	}
	return ev.Tab.ID == old.Tab.ID
}

func (s *subscriber) pump() {
	defer close(s.ch)
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.mu.Unlock()
			select {
			case <-s.wake:
				continue
			case <-s.done:
				return
			}
		}
		ev := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		select {
		case s.ch <- ev:
		case <-s.done:
			return
		}
	}
}

func (s *subscriber) close() {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.done)
	})
}

// Subscribe returns a channel of tab events that closes when ctx ends or the
// browser closes. Successive updates of one tab coalesce for a reader that
// falls behind; Tabs is always the accurate state.
func (b *Browser) Subscribe(ctx context.Context) <-chan Event {
	s := newSubscriber()
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		s.close()
		return s.ch
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	context.AfterFunc(ctx, func() {
		b.mu.Lock()
		delete(b.subs, s)
		b.mu.Unlock()
		s.close()
	})
	return s.ch
}

func (b *Browser) emit(ev Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		s.push(ev)
	}
}

// TabQuery filters a tab listing.
type TabQuery struct {
	// Search matches the title or URL, case-insensitively.
	Search string
	// Owner keeps only tabs leased to this owner; "-" keeps unleased tabs.
	Owner string
	// Limit caps the rows returned (0 means 20).
	Limit int
}

// TabList is a filtered listing. Matched counts every tab that matched, so
// Truncated tells the reader it only has part of the answer.
type TabList struct {
	Tabs      []TabInfo `json:"tabs"`
	Matched   int       `json:"matched"`
	Truncated bool      `json:"truncated"`
}

// Tabs lists the open tabs in the order they were opened.
func (b *Browser) Tabs(q TabQuery) TabList {
	b.mu.Lock()
	tabs := make([]*Tab, 0, len(b.order))
	for _, id := range b.order {
		tabs = append(tabs, b.tabs[id])
	}
	b.mu.Unlock()
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	search := strings.ToLower(q.Search)
	var l TabList
	for _, t := range tabs {
		info := t.Info()
		if search != "" && !strings.Contains(strings.ToLower(info.Title), search) && !strings.Contains(strings.ToLower(info.URL), search) {
			continue
		}
		if q.Owner == "-" && info.Owner != "" || q.Owner != "" && q.Owner != "-" && info.Owner != q.Owner {
			continue
		}
		l.Matched++
		if len(l.Tabs) < limit {
			l.Tabs = append(l.Tabs, info)
		}
	}
	l.Truncated = l.Matched > len(l.Tabs)
	return l
}

// String is the compact form for a model: one row per tab.
func (l TabList) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d tabs", l.Matched)
	if l.Truncated {
		fmt.Fprintf(&sb, " (showing %d; narrow with search or owner)", len(l.Tabs))
	}
	sb.WriteByte('\n')
	for _, t := range l.Tabs {
		fmt.Fprintf(&sb, "%s %q %s", t.ID, clipText(t.Title, 60), clipText(t.URL, 80))
		if t.Owner != "" {
			fmt.Fprintf(&sb, " owner=%s", t.Owner)
		}
		if t.Loading {
			sb.WriteString(" loading")
		}
		if t.Crashed {
			sb.WriteString(" crashed")
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Load navigates the tab to url and returns once the new document has
// loaded, or after Options.SettleTimeout when it has not (a slow page is
// not an error: the first observation sees what is there). It is the
// light navigation for opening a tab: no checked action, no verdict, since
// nothing was on the page before.
func (t *Tab) Load(ctx context.Context, url string) error {
	if err := t.b.checkURL(url); err != nil {
		return fmt.Errorf("load %s: %w", url, err)
	}
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return fmt.Errorf("load %s: %w", url, err)
	}
	defer cancel()
	// Subscribed before the navigation starts, so its load is not missed.
	load, stop := t.target().Subscribe("Page.loadEventFired")
	defer stop()
	if err := t.navigate(cctx, url); err != nil {
		return fmt.Errorf("load %s: %w", url, t.fail(cctx, err))
	}
	if err := t.waitLoad(cctx, load); err != nil {
		return err
	}
	// The title arrives with a target event a moment after the load; read
	// it now, so whoever names the tab next (the transcript's "started
	// on …") names it by its title. A page blocked by a dialog answers
	// nothing: its target events bring the title later.
	if t.blocked() == nil {
		t.refreshInfo(true)
	}
	return nil
}

// awaitLoad waits for the page a tab was created with to load: when the
// document is already complete (it loaded while the tab was attached) it
// returns at once, else at its load event or Options.SettleTimeout.
func (t *Tab) awaitLoad(ctx context.Context) error {
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return fmt.Errorf("await load: %w", err)
	}
	defer cancel()
	load, stop := t.target().Subscribe("Page.loadEventFired")
	defer stop()
	// Asked after subscribing: a load between the two is seen either way.
	// The first document of a new tab is about:blank, which is complete
	// before the requested page commits.
	res, err := cdp.Call(cctx, t.target(), runtime.Evaluate, runtime.EvaluateParams{
		Expression: `location.href !== "about:blank" && document.readyState === "complete"`, ReturnByValue: new(true)})
	if err != nil {
		return fmt.Errorf("await load: %w", t.fail(cctx, err))
	}
	if res.ExceptionDetails == nil && res.Result != nil && string(res.Result.Value) == "true" {
		return nil
	}
	return t.waitLoad(cctx, load)
}

// waitLoad waits for a load event, bounded by Options.SettleTimeout. A
// page that asks something as it loads (a confirm held for the holder) has
// loaded as far as it will until answered: the next look says what it
// asks.
func (t *Tab) waitLoad(ctx context.Context, load <-chan jsonv2.Value) error {
	wait := time.NewTimer(t.b.opts.SettleTimeout)
	defer wait.Stop()
	select {
	case <-load:
		return nil
	case <-wait.C:
		return nil
	case <-t.authAsked():
		return nil
	case <-ctx.Done():
		if interrupted(ctx) {
			return nil
		}
		return fmt.Errorf("load: %w", t.fail(ctx, context.Cause(ctx)))
	}
}
