package agents

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// What the executor's file tools need beyond a Tab: the run's downloads,
// offered by the real tab (app's adapter) and found under decorations.

// DownloadInfo is one of the run's downloads.
type DownloadInfo struct {
	ID    string
	Name  string
	Size  int64
	MIME  string
	State string // in_progress, done, failed
	Err   string
}

// String is the download as the downloads tool lists it.
func (d DownloadInfo) String() string {
	s := fmt.Sprintf("%s %q %d bytes %s %s", d.ID, d.Name, d.Size, d.MIME, d.State)
	if d.Err != "" {
		s += ": " + d.Err
	}
	return s
}

// DownloadsTab is a Tab whose run's downloads can be listed and read.
type DownloadsTab interface {
	Tab
	// Downloads lists the downloads of the tab's holder.
	Downloads(ctx context.Context) ([]DownloadInfo, error)
	// ReadDownload returns the text of the download named by id or file
	// name: the file's own for text, CSV and JSON, the visible text of
	// HTML, a PDF's extracted text.
	ReadDownload(ctx context.Context, which string) (string, error)
}

// ErrNoDownloads is the downloads tools' error on a tab without them.
var ErrNoDownloads = errors.New("this tab keeps no downloads")

// downloadsOf finds the DownloadsTab under t's decorations.
func downloadsOf(t Tab) (DownloadsTab, bool) {
	for range 8 { // decorations are few; a cycle must not spin
		if d, ok := t.(DownloadsTab); ok {
			return d, true
		}
		u, ok := t.(Unwrapper)
		if !ok {
			return nil, false
		}
		t = u.Unwrap()
	}
	return nil, false
}

// downloadPage is how much of a download's text one read_download returns.
const downloadPage = 8000

// CheckUpload refuses an upload of any file the person did not give the
// run (given), and of a given file that is not there or is a folder,
// naming what may be used: a page that asks for another file cannot get
// it.
func CheckUpload(given []string, files []string) error {
	allowed := map[string]bool{}
	for _, f := range given {
		allowed[filepath.Clean(f)] = true
	}
	for _, f := range files {
		p := filepath.Clean(f)
		if !allowed[p] {
			if len(given) == 0 {
				return fmt.Errorf("upload refused: %s was not given to this run, and no file was (the person gives files with the task or --file)", f)
			}
			return fmt.Errorf("upload refused: %s is not a file given to this run; the files you may upload are: %s", f, strings.Join(given, ", "))
		}
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("upload: the file %s cannot be read: %w", f, err)
		}
		if st.IsDir() {
			return fmt.Errorf("upload: %s is a folder, not a file", f)
		}
	}
	return nil
}

// listDownloads is the downloads tool.
func (e *executor) listDownloads(ctx context.Context) toolOut {
	d, ok := downloadsOf(e.tab)
	if !ok {
		return toolOut{text: "error: downloads: " + ErrNoDownloads.Error()}
	}
	list, err := d.Downloads(ctx)
	if err != nil {
		return toolOut{text: "error: downloads: " + err.Error()}
	}
	e.logStep(toolCall{Name: "downloads"}, "{}", fmt.Sprintf("%d downloads", len(list)), true, "", 0)
	if len(list) == 0 {
		return toolOut{text: "no downloads in this run yet"}
	}
	lines := make([]string, len(list))
	for i, x := range list {
		lines[i] = x.String()
	}
	return toolOut{text: "this run's downloads (id, name, size, type, state):\n" + strings.Join(lines, "\n")}
}

// readDownload is the read_download tool: the file's text from cursor, a
// bounded page of it, fenced as page data (a file is whatever a site
// sent).
func (e *executor) readDownload(ctx context.Context, tc toolCall) toolOut {
	def, _ := lookup(e.defs, tc.Name)
	v, err := def.Decode(tc.Args)
	if err != nil {
		return toolOut{malformed: true, text: "error: " + err.Error()}
	}
	x := *v.(*readDownloadArgs)
	if strings.TrimSpace(x.Download) == "" {
		return toolOut{malformed: true, text: "error: read_download needs download: an id or file name from downloads"}
	}
	d, ok := downloadsOf(e.tab)
	if !ok {
		return toolOut{text: "error: read_download: " + ErrNoDownloads.Error()}
	}
	text, err := d.ReadDownload(ctx, x.Download)
	if err != nil {
		return toolOut{text: "error: read_download " + x.Download + ": " + err.Error()}
	}
	if x.Cursor < 0 || x.Cursor > len(text) {
		return toolOut{text: fmt.Sprintf("error: read_download: cursor %d is outside the text (%d bytes)", x.Cursor, len(text))}
	}
	part := truncate(text[x.Cursor:], downloadPage)
	next := x.Cursor + len(part)
	more := "(the end of the file)"
	if next < len(text) {
		more = fmt.Sprintf("(more follows: read_download with cursor %d)", next)
	}
	e.logStep(tc, tc.Args, "read "+x.Download, true, "", len(part))
	return toolOut{text: "the text of " + x.Download + ":\n" + fence("download:"+x.Download, part) + "\n" + more, kind: pageTextMsg}
}

// dismissDenied cancels the dialog whose acceptance was denied, so the
// page goes on (the delete it asked about is not done), and says so.
func (e *executor) dismissDenied(ctx context.Context, out toolOut) toolOut {
	if _, err := e.tab.Act(ctx, Action{Kind: ActDialog}); err != nil {
		out.text += " (dismissing the dialog failed: " + err.Error() + ")"
		return out
	}
	out.text += " The dialog was dismissed (Cancel)."
	return out
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
