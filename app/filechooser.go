package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"vroom/browser"
)

// A file input clicked in the person's tab opens the desktop's own file
// dialog, as Chrome's does: the browser intercepts the chooser (a headless
// Chromium has none to show), the window shows GTK's through Wails, and
// the files chosen are set on the input, which fires its change event as
// a real choice does. Cancelled, the input keeps what it had.

// ErrNoWindow is why a file dialog cannot be shown: Vroom runs without its
// window (a test's App, the terminal).
var ErrNoWindow = errors.New("no window to show a file dialog in")

// chooseFilesFor asks the person for the files of the chooser fc opened
// in their tab id, and sets them on its input.
func (a *App) chooseFilesFor(ctx context.Context, id string, fc browser.FileChooser) {
	if fc.Err != "" {
		emit(a, EventNotice, "The page asked for files in a way Vroom cannot answer yet: "+fc.Err)
		return
	}
	files, err := a.askFiles(fc)
	if err != nil {
		a.log.Warn("file dialog", "tab", id, "err", err)
		emit(a, EventNotice, fmt.Sprintf("The file dialog could not open: %v", err))
		return
	}
	if len(files) == 0 {
		return // cancelled
	}
	t, err := a.personsTab(id)
	if err != nil {
		emit(a, EventNotice, fmt.Sprintf("The files were not given to the page: %v", err))
		return
	}
	cctx, cancel := context.WithTimeout(browser.WithOwner(ctx, User), browserWait)
	defer cancel()
	if _, err := t.Do(cctx, browser.Action{Kind: browser.ActUpload, Files: files}); err != nil {
		emit(a, EventNotice, fmt.Sprintf("The files were not given to the page: %v", err))
	}
}

// askFiles shows the desktop's file dialog for fc: one file, or several
// when the input takes several; nil when the person cancelled.
func (a *App) askFiles(fc browser.FileChooser) ([]string, error) {
	ctx := a.context()
	// Wails' runtime exits the process when its context is not the
	// window's; the window's carries its frontend under this key.
	if ctx.Value("frontend") == nil {
		return nil, ErrNoWindow
	}
	opts := runtime.OpenDialogOptions{Title: chooserTitle(fc), Filters: chooserFilters(fc.Accept), DefaultDirectory: a.downloadsDirIfAny()}
	// GTK runs the dialog in a loop of its own, which the quit Wails sends
	// the window on SIGINT or SIGTERM does not end: the dialog would stay
	// open and Vroom with it. A signal while it is open closes the session
	// (what the window's shutdown does) and exits.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	defer func() {
		signal.Stop(sig)
		close(done)
	}()
	go func() {
		select {
		case <-sig:
			a.log.Info("a signal while the file dialog is open: closing")
			a.shutdown()
			os.Exit(0)
		case <-done:
		}
	}()
	if fc.Multiple {
		return runtime.OpenMultipleFilesDialog(ctx, opts)
	}
	f, err := runtime.OpenFileDialog(ctx, opts)
	if err != nil || f == "" {
		return nil, err
	}
	return []string{f}, nil
}

// downloadsDirIfAny is the person's download folder when it exists, where
// the file dialog opens (a file just downloaded is often the one to give).
func (a *App) downloadsDirIfAny() string {
	dir := a.downloadsDir()
	if dir == "" || !isDir(dir) {
		return ""
	}
	return dir
}

func chooserTitle(fc browser.FileChooser) string {
	what := "a file"
	if fc.Multiple {
		what = "files"
	}
	if fc.Name != "" {
		return fmt.Sprintf("Choose %s for %q", what, fc.Name)
	}
	return "Choose " + what
}

// chooserFilters turns an input's accept attribute (".pdf,image/*") into
// the dialog's filters: the types it accepts first, then all files, which
// Chrome offers too.
func chooserFilters(accept string) []runtime.FileFilter {
	var pats []string
	for _, p := range strings.Split(accept, ",") {
		p = strings.TrimSpace(p)
		switch {
		case strings.HasPrefix(p, "."):
			pats = append(pats, "*"+p)
		case strings.HasPrefix(p, "image/"), strings.HasPrefix(p, "audio/"), strings.HasPrefix(p, "video/"), strings.HasPrefix(p, "text/"):
			pats = append(pats, mimePatterns(p)...)
		}
	}
	all := runtime.FileFilter{DisplayName: "All files", Pattern: "*"}
	if len(pats) == 0 {
		return []runtime.FileFilter{all}
	}
	return []runtime.FileFilter{{DisplayName: "Accepted files (" + accept + ")", Pattern: strings.Join(pats, ";")}, all}
}

// mimePatterns are the file names of a MIME type or family, as GTK's
// filters take names, not types.
func mimePatterns(m string) []string {
	switch {
	case strings.HasPrefix(m, "image/"):
		return []string{"*.png", "*.jpg", "*.jpeg", "*.gif", "*.webp", "*.svg", "*.bmp"}
	case strings.HasPrefix(m, "audio/"):
		return []string{"*.mp3", "*.wav", "*.ogg", "*.flac", "*.m4a"}
	case strings.HasPrefix(m, "video/"):
		return []string{"*.mp4", "*.webm", "*.mkv", "*.mov"}
	}
	return []string{"*.txt", "*.csv", "*.md", "*.html"}
}
