package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// Downloads never go where Chromium would put them (the machine user's
// Downloads folder): the browser saves each under its GUID in a staging
// folder of its own, and once complete moves it, under its suggested name
// made safe, into the folder of whoever holds the tab that started it
// (Tab.SetDownloads: a run's data folder), else Options.Downloads.Dir,
// else a folder of the browser's own that goes when it closes.

// DownloadState is where a download is.
type DownloadState string

// Download states.
const (
	DownloadStateStarted    DownloadState = "started"
	DownloadStateInProgress DownloadState = "in-progress"
	DownloadStateDone       DownloadState = "done"
	DownloadStateFailed     DownloadState = "failed"
)

// Download is a file a page made the browser download.
type Download struct {
	ID  string `json:"id"`
	Tab string `json:"tab,omitempty"`
	URL string `json:"url"`
	// Name is the file's name: the page's suggestion made safe (no
	// folders, no control or reserved characters), made unique in its
	// folder once done.
	Name string `json:"name"`
	// Path is where the file is, once done.
	Path string `json:"path,omitempty"`
	// Size is the bytes received; Total those expected (0: unknown).
	Size  int64         `json:"size"`
	Total int64         `json:"total,omitempty"`
	MIME  string        `json:"mime,omitempty"`
	State DownloadState `json:"state"`
	// Err says why it failed.
	Err string `json:"err,omitempty"`
}

// String describes the download as a model or a person reads it.
func (d Download) String() string {
	switch d.State {
	case DownloadStateDone:
		return fmt.Sprintf("downloaded %s (%s, %s) to %s", d.Name, byteSize(d.Size), d.MIME, d.Path)
	case DownloadStateFailed:
		return fmt.Sprintf("the download of %s failed: %s", d.Name, d.Err)
	}
	if d.Total > 0 {
		return fmt.Sprintf("downloading %s (%s of %s)", d.Name, byteSize(d.Size), byteSize(d.Total))
	}
	return fmt.Sprintf("downloading %s (%s so far)", d.Name, byteSize(d.Size))
}

// byteSize is n in the unit a person reads.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// DownloadOptions says where a tab's downloads go and how large they may
// be.
type DownloadOptions struct {
	// Dir is the folder finished downloads are moved into (created if
	// need be).
	Dir string
	// MaxBytes cancels a download once it is known to be larger (its
	// announced size, or the bytes received); 0 is no cap.
	MaxBytes int64
}

// ErrDownloadFailed is what WaitDownload returns for a failed download.
var ErrDownloadFailed = errors.New("download failed")

// maxOpeners bounds the popups whose opener is remembered: a download
// link with a target opens a tab that turns into the download at once,
// often before it is adopted.
const maxOpeners = 64

// downloads is the browser's download state.
type downloads struct {
	mu      sync.Mutex
	staging string
	byID    map[string]*dlEntry
	ids     []string          // byID's keys, oldest first
	frames  map[string]string // child frame -> its tab
	openers map[string]string // page target -> the tab that opened it
	order   []string          // openers' keys, oldest first
	moving  sync.Mutex        // one finished download moved at a time, so names stay unique
}

// dlEntry is one download and what it goes by.
type dlEntry struct {
	d      Download
	opts   DownloadOptions
	cancel bool // over the cap: cancelled by us, and why is in d.Err
	done   chan struct{}
}

// enableDownloads routes the session's downloads through the staging
// folder, with events. A remote browser's files would land on its own
// machine, out of anyone's reach: its downloads are refused, and reported.
func (b *Browser) enableDownloads(ctx context.Context, s *session) error {
	p := browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorDeny, EventsEnabled: new(true)}
	if b.opts.RemoteURL == "" {
		dir, err := b.stagingDir()
		if err != nil {
			return err
		}
		p.Behavior, p.DownloadPath = browser.SetDownloadBehaviorBehaviorAllowAndName, dir
	}
	if _, err := cdp.Call(ctx, chromedp.FromContext(s.ctx).Browser, browser.SetDownloadBehavior, p); err != nil {
		if b.opts.RemoteURL != "" {
			// A farm's proxy may not pass the Browser domain on; its
			// browser saves downloads on its own machine then, out of
			// the holder's reach but not on this one.
			b.opts.Logf("downloads: %v", err)
			return nil
		}
		return fmt.Errorf("downloads: %w", err)
	}
	return nil
}

// stagingDir is the browser's staging folder, made on first use.
func (b *Browser) stagingDir() (string, error) {
	b.dl.mu.Lock()
	defer b.dl.mu.Unlock()
	if b.dl.staging != "" {
		return b.dl.staging, nil
	}
	dir, err := os.MkdirTemp("", "vroom-downloads-")
	if err != nil {
		return "", fmt.Errorf("downloads: %w", err)
	}
	b.dl.staging = dir
	return dir, nil
}

// removeStaging removes the staging folder, with what was never moved out
// of it, as the browser closes.
func (b *Browser) removeStaging() {
	b.dl.mu.Lock()
	dir := b.dl.staging
	b.dl.staging = ""
	b.dl.mu.Unlock()
	if dir != "" {
		if err := os.RemoveAll(dir); err != nil {
			b.opts.Logf("downloads: %v", err)
		}
	}
}

// SetDownloads sets where the tab's downloads go and their cap, for its
// holder (it checks the lease). A popup starts with its opener's.
func (t *Tab) SetDownloads(ctx context.Context, o DownloadOptions) error {
	_, cancel, err := t.beginTab(ctx)
	if err != nil {
		return fmt.Errorf("downloads %s: %w", t.id, err)
	}
	cancel()
	if o.Dir != "" {
		abs, err := filepath.Abs(o.Dir)
		if err != nil {
			return fmt.Errorf("downloads %s: %w: %w", t.id, ErrBadArgument, err)
		}
		o.Dir = abs
	}
	t.dlo.Store(&o)
	return nil
}

// downloadOptions is what applies to a download of tab (nil: none known).
func (b *Browser) downloadOptions(t *Tab) DownloadOptions {
	o := b.opts.Downloads
	if t != nil {
		if to := t.dlo.Load(); to != nil {
			if to.Dir != "" {
				o.Dir = to.Dir
			}
			if to.MaxBytes > 0 {
				o.MaxBytes = to.MaxBytes
			}
		}
	}
	if o.Dir == "" {
		b.dl.mu.Lock()
		if b.dl.staging != "" {
			o.Dir = filepath.Join(b.dl.staging, "files")
		}
		b.dl.mu.Unlock()
	}
	return o
}

// noteFrame records which tab a child frame belongs to (frame "" removes).
func (b *Browser) noteFrame(frame, tab string) {
	b.dl.mu.Lock()
	defer b.dl.mu.Unlock()
	if b.dl.frames == nil {
		b.dl.frames = map[string]string{}
	}
	if tab == "" {
		delete(b.dl.frames, frame)
		return
	}
	b.dl.frames[frame] = tab
}

// noteOpener records the tab that opened a page target.
func (b *Browser) noteOpener(id, opener string) {
	b.dl.mu.Lock()
	defer b.dl.mu.Unlock()
	if b.dl.openers == nil {
		b.dl.openers = map[string]string{}
	}
	b.dl.openers[id] = opener
	b.dl.order = append(b.dl.order, id)
	if len(b.dl.order) > maxOpeners {
		delete(b.dl.openers, b.dl.order[0])
		b.dl.order = b.dl.order[1:]
	}
}

// tabOfFrame finds the tab a frame belongs to: the tab whose top frame it
// is, or the tab it is a child frame of. A download from a popup with no
// folder of its own is its opener's: a link with a target opens a tab that
// turns into the download at once (and closes), and the click that did it
// was the opener's.
func (b *Browser) tabOfFrame(frame string) *Tab {
	b.dl.mu.Lock()
	id := frame
	if tab, ok := b.dl.frames[frame]; ok {
		id = tab
	}
	opener := b.dl.openers[id]
	b.dl.mu.Unlock()
	b.mu.Lock()
	t, ot := b.tabs[id], b.tabs[opener]
	b.mu.Unlock()
	if ot != nil && (t == nil || t.dlo.Load() == nil) {
		return ot
	}
	return t
}

// onDownload handles the browser's download events. It runs in the read
// loop: moving a file and cancelling run in goroutines.
func (b *Browser) onDownload(s *session, ev any) {
	switch ev := ev.(type) {
	case *browser.EventDownloadWillBegin:
		t := b.tabOfFrame(string(ev.FrameID))
		e := &dlEntry{opts: b.downloadOptions(t), done: make(chan struct{}),
			d: Download{ID: ev.GUID, URL: ev.URL, Name: SanitizeFileName(ev.SuggestedFilename), State: DownloadStateStarted}}
		if b.opts.RemoteURL != "" {
			e.d.Err = "downloads are refused in a remote browser: its files would stay on its machine"
		}
		var info TabInfo
		if t != nil {
			e.d.Tab, info = t.id, t.Info()
		}
		b.dl.mu.Lock()
		if b.dl.byID == nil {
			b.dl.byID = map[string]*dlEntry{}
		}
		b.dl.byID[ev.GUID] = e
		b.dl.ids = append(b.dl.ids, ev.GUID)
		d := e.d
		b.dl.mu.Unlock()
		if t != nil {
			t.notes.add(pageNote{download: ev.GUID})
		}
		b.emit(Event{Kind: DownloadStarted, Tab: info, Download: &d})
	case *browser.EventDownloadProgress:
		b.downloadProgress(s, ev)
	}
}

// downloadProgress updates a download, cancels one over its cap, and
// finishes one that completed or was cancelled.
func (b *Browser) downloadProgress(s *session, ev *browser.EventDownloadProgress) {
	b.dl.mu.Lock()
	e := b.dl.byID[ev.GUID]
	if e == nil || e.d.State == DownloadStateDone || e.d.State == DownloadStateFailed {
		b.dl.mu.Unlock()
		return
	}
	e.d.Size, e.d.Total = int64(ev.ReceivedBytes), int64(ev.TotalBytes)
	over := e.opts.MaxBytes > 0 && !e.cancel && (e.d.Total > e.opts.MaxBytes || e.d.Size > e.opts.MaxBytes)
	if over {
		e.cancel = true
		e.d.Err = fmt.Sprintf("larger than the cap of %s (%s)", byteSize(e.opts.MaxBytes), byteSize(max(e.d.Total, e.d.Size)))
	}
	state := ev.State
	if state == browser.DownloadProgressStateInProgress {
		e.d.State = DownloadStateInProgress
	}
	d := e.d
	b.dl.mu.Unlock()
	switch {
	case over:
		go b.cancelDownload(s, ev.GUID)
	case state == browser.DownloadProgressStateCompleted:
		go b.finishDownload(e, ev.FilePath)
	case state == browser.DownloadProgressStateCanceled:
		b.failDownload(e, "cancelled")
	default:
		b.emit(Event{Kind: DownloadProgress, Tab: b.tabInfo(d.Tab), Download: &d})
	}
}

// cancelDownload asks the browser to stop a download over its cap; its
// cancelled progress event then fails it, with the cap as the reason.
func (b *Browser) cancelDownload(s *session, guid string) {
	ctx, cancel := context.WithTimeout(s.ctx, b.opts.CallTimeout)
	defer cancel()
	if _, err := cdp.Call(ctx, chromedp.FromContext(s.ctx).Browser, browser.CancelDownload, browser.CancelDownloadParams{GUID: guid}); err != nil {
		b.opts.Logf("downloads: cancel %s: %v", guid, err)
	}
}

// failDownload ends a download as failed, with reason unless one is known.
func (b *Browser) failDownload(e *dlEntry, reason string) {
	b.dl.mu.Lock()
	if e.d.State == DownloadStateDone || e.d.State == DownloadStateFailed {
		b.dl.mu.Unlock()
		return
	}
	e.d.State = DownloadStateFailed
	if e.d.Err == "" {
		e.d.Err = reason
	}
	d, staging := e.d, b.dl.staging
	b.dl.mu.Unlock()
	if staging != "" {
		// What a cancelled download left behind; it may have left nothing.
		_ = os.Remove(filepath.Join(staging, d.ID))
	}
	close(e.done)
	b.emit(Event{Kind: DownloadFailed, Tab: b.tabInfo(d.Tab), Download: &d})
}

// tabInfo is the tab's info, or just its id once it is gone.
func (b *Browser) tabInfo(id string) TabInfo {
	if t, err := b.Tab(id); err == nil {
		return t.Info()
	}
	return TabInfo{ID: id}
}

// Downloads lists the downloads of the browser's life, oldest first.
func (b *Browser) Downloads() []Download {
	b.dl.mu.Lock()
	defer b.dl.mu.Unlock()
	out := make([]Download, 0, len(b.dl.ids))
	for _, id := range b.dl.ids {
		out = append(out, b.dl.byID[id].d)
	}
	return out
}

// WaitDownload waits until the download is done or failed and returns it;
// a failed one with an error wrapping ErrDownloadFailed.
func (b *Browser) WaitDownload(ctx context.Context, id string) (Download, error) {
	b.dl.mu.Lock()
	e := b.dl.byID[id]
	b.dl.mu.Unlock()
	if e == nil {
		return Download{}, fmt.Errorf("download %s: %w: no such download", id, ErrBadArgument)
	}
	select {
	case <-e.done:
	case <-ctx.Done():
		return Download{}, fmt.Errorf("download %s: %w", id, context.Cause(ctx))
	}
	b.dl.mu.Lock()
	d := e.d
	b.dl.mu.Unlock()
	if d.State == DownloadStateFailed {
		return d, fmt.Errorf("download %s: %w: %s", d.Name, ErrDownloadFailed, d.Err)
	}
	return d, nil
}

// awaitDownloadNote waits, up to windowWait, for a download the tab's
// pages began since mark.
func (t *Tab) awaitDownloadNote(ctx context.Context, mark int) {
	deadline := time.NewTimer(windowWait)
	defer deadline.Stop()
	for {
		wake := t.notes.changes()
		for _, p := range t.notes.since(mark) {
			if p.download != "" {
				return
			}
		}
		select {
		case <-wake:
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// noteDownloads puts the downloads an action started in its result, as
// they are now: done already, for a small file.
func (t *Tab) noteDownload(r *Result, id string) {
	t.b.dl.mu.Lock()
	e := t.b.dl.byID[id]
	t.b.dl.mu.Unlock()
	if e == nil {
		return
	}
	if e.d.State == DownloadStateStarted || e.d.State == DownloadStateInProgress {
		// A small file completes within moments of starting.
		select {
		case <-e.done:
		case <-time.After(time.Second):
		}
	}
	t.b.dl.mu.Lock()
	r.Downloads = append(r.Downloads, e.d)
	t.b.dl.mu.Unlock()
	addEffect(r, "download")
}
