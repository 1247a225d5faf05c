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
	text, n, err := DownloadsCall(ctx, e.tab)
	if err != nil {
		return toolOut{text: "error: " + err.Error()}
	}
	e.logStep(toolCall{Name: "downloads"}, "{}", fmt.Sprintf("%d downloads", n), true, "", 0)
	return toolOut{text: text}
}

// DownloadsCall is the downloads tool for any holder of t (an executor,
// an MCP client): the list as the model reads it, and how many there are.
func DownloadsCall(ctx context.Context, t Tab) (text string, n int, err error) {
	d, ok := downloadsOf(t)
	if !ok {
		return "", 0, fmt.Errorf("downloads: %w", ErrNoDownloads)
	}
	list, err := d.Downloads(ctx)
	if err != nil {
		return "", 0, fmt.Errorf("downloads: %w", err)
	}
	if len(list) == 0 {
		return "no downloads in this run yet", 0, nil
	}
	lines := make([]string, len(list))
	for i, x := range list {
		lines[i] = x.String()
	}
	return "this run's downloads (id, name, size, type, state):\n" + strings.Join(lines, "\n"), len(list), nil
}

// readDownload is the read_download tool.
func (e *executor) readDownload(ctx context.Context, tc toolCall) toolOut {
	p, err := ReadDownloadCall(ctx, e.tab, tc.Args)
	if errors.Is(err, ErrBadArgs) {
		return toolOut{malformed: true, text: "error: " + err.Error()}
	}
	if err != nil {
		return toolOut{text: "error: " + err.Error()}
	}
	e.logStep(tc, tc.Args, "read "+p.Download, true, "", p.Bytes)
	return toolOut{text: p.Text, kind: pageTextMsg}
}

// ErrBadArgs marks an error in a call's arguments themselves, rather than
// in what they name (errors.Is); its message is the argument error's.
var ErrBadArgs = errors.New("bad arguments")

// badArgs is an argument error, which is ErrBadArgs.
type badArgs struct{ error }

func (badArgs) Is(target error) bool { return target == ErrBadArgs }
func (b badArgs) Unwrap() error      { return b.error }

// DownloadPage is one page of a downloaded file's text, as read_download
// returns it.
type DownloadPage struct {
	// Text is the page fenced as page data (a file is whatever a site
	// sent), then where to go on.
	Text string
	// Download is the download as the call named it; Bytes how much of
	// its text the page holds.
	Download string
	Bytes    int
}

// ReadDownloadCall is read_download for any holder of t: its arguments
// (raw JSON, decoded as the executor's) and the page of the file's text
// from their cursor.
func ReadDownloadCall(ctx context.Context, t Tab, raw string) (DownloadPage, error) {
	var x readDownloadArgs
	if err := decodeArgs("read_download", raw, &x); err != nil {
		return DownloadPage{}, badArgs{err}
	}
	if strings.TrimSpace(x.Download) == "" {
		return DownloadPage{}, badArgs{errors.New("read_download needs download: an id or file name from downloads")}
	}
	d, ok := downloadsOf(t)
	if !ok {
		return DownloadPage{}, fmt.Errorf("read_download: %w", ErrNoDownloads)
	}
	all, err := d.ReadDownload(ctx, x.Download)
	if err != nil {
		return DownloadPage{}, fmt.Errorf("read_download %s: %w", x.Download, err)
	}
	if x.Cursor < 0 || x.Cursor > len(all) {
		return DownloadPage{}, fmt.Errorf("read_download: cursor %d is outside the text (%d bytes)", x.Cursor, len(all))
	}
	part := truncate(all[x.Cursor:], downloadPage)
	next := x.Cursor + len(part)
	more := "(the end of the file)"
	if next < len(all) {
		more = fmt.Sprintf("(more follows: read_download with cursor %d)", next)
	}
	return DownloadPage{Text: "the text of " + x.Download + ":\n" + fence("download:"+x.Download, part) + "\n" + more,
		Download: x.Download, Bytes: len(part)}, nil
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
