package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"vroom/agents"
	"vroom/browser"
)

// DefaultMaxDownload caps one download of a run's tabs.
const DefaultMaxDownload = 100 << 20

// maxDownloadText bounds the text read from one downloaded file.
const maxDownloadText = 4 << 20

// ErrNoSuchDownload is read_download's error for a name that is none of
// the run's downloads.
var ErrNoSuchDownload = errors.New("no such download in this run")

// SetDownloads makes every tab the run leases save its downloads into
// o.Dir (the run's folder, never the person's Downloads) within o's cap.
func (p *Tabs) SetDownloads(o browser.DownloadOptions) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.downloads = o
}

func (p *Tabs) setDownloads(ctx context.Context, t *browser.Tab) error {
	p.mu.Lock()
	o := p.downloads
	p.mu.Unlock()
	if o.Dir == "" {
		return nil
	}
	if err := t.SetDownloads(ctx, o); err != nil {
		return fmt.Errorf("set the run's download folder: %w", err)
	}
	return nil
}

// pageDialog is the held dialog as agents see it.
func pageDialog(d *browser.Dialog) *agents.PageDialog {
	if d == nil {
		return nil
	}
	return &agents.PageDialog{Kind: string(d.Kind), Message: d.Message}
}

// noteDialog remembers the dialog r left open, for the gate's look at
// what accepting it commits to.
func (a *Tab) noteDialog(r *browser.Result) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.dialog = r.Dialog
	if r.Dialog == nil {
		if d, ok := a.tb().Dialog(); ok {
			a.dialog = &d
		}
	}
}

// follow moves the executor's view as a person's moves in Chrome: into
// the popup an action opened, and back to the opener when the popup
// closed itself. ok is false when the view stays.
func (a *Tab) follow(ctx context.Context, r *browser.Result) (agents.Outcome, bool) {
	switch {
	case len(r.Opened) > 0:
		last := r.Opened[len(r.Opened)-1]
		popup, err := a.pool.tab(last.ID)
		if err != nil {
			return agents.Outcome{}, false
		}
		// The download folder is the run's in the popup too; a popup
		// that cannot take it stays out of view rather than save
		// elsewhere.
		if err := a.pool.setDownloads(a.ctx(ctx), popup); err != nil {
			return agents.Outcome{}, false
		}
		// Muted as the run's tabs are. Ignored when it fails: a popup
		// that cannot be muted is one whose page is blocked or gone,
		// which plays nothing, and the view must still follow it.
		_ = popup.SetMuted(a.ctx(ctx), true)
		a.mu.Lock()
		a.openers = append(a.openers, a.tb())
		a.cur.Store(popup)
		a.mu.Unlock()
		i := popup.Info()
		return agents.Outcome{Summary: r.String() + "; your view is now that window (" + agents.TabInfo{Title: i.Title, URL: i.URL}.Name() + ")",
			Effect: true, Navigated: true, Switched: true, URL: i.URL}, true
	case r.Closed:
		a.mu.Lock()
		if len(a.openers) == 0 {
			a.mu.Unlock()
			return agents.Outcome{}, false
		}
		back := a.openers[len(a.openers)-1]
		a.openers = a.openers[:len(a.openers)-1]
		a.cur.Store(back)
		a.mu.Unlock()
		i := back.Info()
		return agents.Outcome{Summary: r.String() + "; the window closed and your view is back on " + agents.TabInfo{Title: i.Title, URL: i.URL}.Name(),
			Effect: true, Navigated: true, Switched: true, URL: i.URL}, true
	}
	return agents.Outcome{}, false
}

// Downloads lists the downloads saved into the run's folder.
func (a *Tab) Downloads(ctx context.Context) ([]agents.DownloadInfo, error) {
	list, err := a.runDownloads()
	if err != nil {
		return nil, err
	}
	out := make([]agents.DownloadInfo, len(list))
	for i, d := range list {
		out[i] = agents.DownloadInfo{ID: d.ID, Name: d.Name, Size: d.Size, MIME: d.MIME, State: string(d.State), Err: d.Err}
	}
	return out, nil
}

// runDownloads are the browser's downloads that belong to the run: those
// of the tabs this executor has seen, or saved in the run's folder.
func (a *Tab) runDownloads() ([]browser.Download, error) {
	if a.pool == nil || a.pool.b == nil {
		return nil, agents.ErrNoDownloads
	}
	a.pool.mu.Lock()
	dir := a.pool.downloads.Dir
	a.pool.mu.Unlock()
	seen := map[string]bool{a.tb().ID(): true}
	a.mu.Lock()
	for _, t := range a.openers {
		seen[t.ID()] = true
	}
	a.mu.Unlock()
	var out []browser.Download
	for _, d := range a.pool.b.Downloads() {
		inDir := dir != "" && d.Path != "" && strings.HasPrefix(d.Path, dir+string(filepath.Separator))
		if seen[d.Tab] || inDir {
			out = append(out, d)
		}
	}
	return out, nil
}

// ReadDownload returns the text of the run's download which (its id or
// name): text as it is, HTML as its text, a PDF through pdftotext.
func (a *Tab) ReadDownload(ctx context.Context, which string) (string, error) {
	list, err := a.runDownloads()
	if err != nil {
		return "", err
	}
	for _, d := range list {
		if d.ID != which && d.Name != which {
			continue
		}
		switch d.State {
		case browser.DownloadStateDone:
		case browser.DownloadStateFailed:
			return "", failedDownload{fmt.Sprintf("the download of %s failed (%s): there is no file to read", d.Name, d.Err)}
		default:
			return "", fmt.Errorf("%s is %s, not done", d.Name, d.State)
		}
		return fileText(ctx, d.Path, d.MIME)
	}
	names := make([]string, len(list))
	for i, d := range list {
		names[i] = d.Name
	}
	return "", fmt.Errorf("%w: %q (there are: %s)", ErrNoSuchDownload, which, strings.Join(names, ", "))
}

var (
	tagRE    = regexp.MustCompile(`(?s)<(script|style)\b.*?</(script|style)>|<[^>]*>`)
	blanksRE = regexp.MustCompile(`\n\s*\n+`)
)

// fileText extracts a downloaded file's text.
func fileText(ctx context.Context, path, mime string) (string, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == ".pdf" || strings.Contains(mime, "pdf") {
		bin, err := exec.LookPath("pdftotext")
		if err != nil {
			return "", errors.New("reading a PDF needs pdftotext (poppler-utils), which is not installed")
		}
		out, err := exec.CommandContext(ctx, bin, "-layout", "-enc", "UTF-8", path, "-").Output()
		if err != nil {
			return "", fmt.Errorf("pdftotext %s: %w", filepath.Base(path), err)
		}
		return clipText(string(out)), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close() // read-only: a close error loses nothing
	buf := make([]byte, maxDownloadText)
	n, _ := f.Read(buf) // a short read is the file's start, which is what is shown
	b := buf[:n]
	if bytes.IndexByte(b, 0) >= 0 {
		return "", fmt.Errorf("%s is not text (%s)", filepath.Base(path), mime)
	}
	s := string(b)
	if ext == ".html" || ext == ".htm" || strings.Contains(mime, "html") {
		s = blanksRE.ReplaceAllString(html.UnescapeString(tagRE.ReplaceAllString(s, "\n")), "\n")
	}
	return strings.TrimSpace(s), nil
}

func clipText(s string) string {
	if len(s) > maxDownloadText {
		return s[:maxDownloadText]
	}
	return s
}

// taskPathRE finds absolute paths in a task's text.
var taskPathRE = regexp.MustCompile(`(?:^|[\s"'(])(/[^\s"'()]+)`)

// GivenFiles are the files a run may upload: those passed, made
// absolute, and the existing files its task names by absolute path.
func GivenFiles(task string, passed []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, f := range passed {
		if abs, err := filepath.Abs(f); err == nil {
			add(abs)
		}
	}
	for _, m := range taskPathRE.FindAllStringSubmatch(task, -1) {
		p := strings.TrimRight(m[1], ".,;:!?")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			add(p)
		}
	}
	return out
}

// failedDownload says why a download has no file to read, in one line
// for the model, and is browser.ErrDownloadFailed for errors.Is.
type failedDownload struct{ msg string }

func (e failedDownload) Error() string { return e.msg }
func (e failedDownload) Unwrap() error { return browser.ErrDownloadFailed }
