package app

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"vroom/browser"
)

// The person's downloads go where Chrome puts them, the user's Downloads
// folder, unless Settings name another; the agents' runs keep their own
// folders (runner). The tray lists what the person's tabs downloaded, with
// its progress, and opens a file or its folder with the desktop's own
// handler.

// EventDownloads carries a DownloadsView whenever one of the person's
// downloads starts, moves on, finishes or fails. Progress comes coalesced
// by the browser: the newest state of each download.
const EventDownloads Event[DownloadsView] = "downloads:changed"

// DownloadsView is the tray: the person's downloads, newest first.
type DownloadsView struct {
	Downloads []browser.Download `json:"downloads"`
}

// downloadsDir is where the person's downloads go: Settings' folder, else
// ~/Downloads; "" (the browser's own folder, which goes when it closes)
// when there is no home folder.
func (a *App) downloadsDir() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.settings.Browser.DownloadsDir()
}

// applyDownloadsDir points the person's open tabs at their download
// folder, after Settings changed it; new tabs get it as they open.
func (a *App) applyDownloadsDir() {
	b, err := a.browserNow()
	if err != nil {
		return // no browser yet: it starts with the folder
	}
	dir := a.downloadsDir()
	a.person.mu.Lock()
	same := a.person.dir == dir
	a.person.dir = dir
	a.person.mu.Unlock()
	if same {
		return
	}
	ctx, cancel := context.WithTimeout(browser.WithOwner(a.context(), User), inputWait)
	defer cancel()
	for _, info := range b.Tabs(browser.TabQuery{Limit: 1000}).Tabs {
		if info.Owner != "" {
			continue // a run's tab keeps the run's folder
		}
		if t, err := b.Tab(info.ID); err == nil {
			if err := t.SetDownloads(ctx, browser.DownloadOptions{Dir: dir}); err != nil {
				a.log.Warn("the person's download folder", "tab", info.ID, "err", err)
			}
		}
	}
}

// noteDownload remembers a download of the person's tabs and tells the
// tray. A download of a tab an agent holds is the run's: not shown.
func (a *App) noteDownload(ev browser.Event) {
	if ev.Download == nil {
		return
	}
	p := &a.person
	p.mu.Lock()
	if ev.Kind == browser.DownloadStarted && ev.Tab.Owner == "" {
		if p.downloads == nil {
			p.downloads = map[string]bool{}
		}
		p.downloads[ev.Download.ID] = true
	}
	mine := p.downloads[ev.Download.ID]
	p.mu.Unlock()
	if mine {
		emit(a, EventDownloads, a.Downloads())
	}
}

// Downloads returns the tray's downloads, newest first.
func (a *App) Downloads() DownloadsView {
	v := DownloadsView{Downloads: []browser.Download{}}
	b, err := a.browserNow()
	if err != nil {
		return v
	}
	a.person.mu.Lock()
	defer a.person.mu.Unlock()
	for _, d := range b.Downloads() {
		if a.person.downloads[d.ID] {
			v.Downloads = append(v.Downloads, d)
		}
	}
	slices.Reverse(v.Downloads)
	return v
}

// OpenDownload opens a finished download with the desktop's handler for
// its type.
func (a *App) OpenDownload(id string) error {
	d, err := a.download(id)
	if err != nil {
		return fmt.Errorf("open the download: %w", err)
	}
	return a.openWithDesktop(d.Path)
}

// ShowDownload opens the folder a finished download is in.
func (a *App) ShowDownload(id string) error {
	d, err := a.download(id)
	if err != nil {
		return fmt.Errorf("show the download: %w", err)
	}
	return a.openWithDesktop(filepath.Dir(d.Path))
}

// download is the person's finished download id.
func (a *App) download(id string) (browser.Download, error) {
	for _, d := range a.Downloads().Downloads {
		if d.ID != id {
			continue
		}
		if d.State != browser.DownloadStateDone || d.Path == "" {
			return d, fmt.Errorf("%s is %s, not done", d.Name, d.State)
		}
		return d, nil
	}
	return browser.Download{}, fmt.Errorf("no download %q", id)
}

// openWithDesktop hands path to xdg-open, the desktop's file handler. It
// does not wait for the application it starts.
func (a *App) openWithDesktop(path string) error {
	bin, err := exec.LookPath("xdg-open")
	if err != nil {
		return fmt.Errorf("open %s: xdg-open is not installed (xdg-utils)", path)
	}
	cmd := exec.CommandContext(context.WithoutCancel(a.context()), bin, path)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	go func() {
		// xdg-open's own exit status says nothing the person can act on:
		// the handler it starts reports its own errors.
		_ = cmd.Wait()
	}()
	return nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
