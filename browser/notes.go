package browser

import (
	"context"
	"sync"
)

// maxNotes bounds a tab's log of what its pages asked: an action reads only
// what happened during it, so the log needs to reach back one action.
const maxNotes = 64

// pageNotes is a tab's short, numbered log of what its pages asked of the
// browser without anyone waiting on it — a dialog the policy answered, a
// file chooser, a download, a window opened — so the action under way can
// say in its Result what it raised. Event handlers add to it from the CDP
// read loop; it has its own lock, held for no call.
type pageNotes struct {
	mu   sync.Mutex
	seq  int
	list []pageNote
	wake chan struct{} // closed by the next add
}

// pageNote is one entry; exactly one of its pointers is set.
type pageNote struct {
	seq     int
	dialog  *Dialog
	chooser *openChooser
	// download is the id of a download the page started.
	download string
	window   *windowNote
	auth     *AuthChallenge
}

// mark is the log's position now: notes added later have a higher seq.
func (n *pageNotes) mark() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.seq
}

// add appends a note, dropping the oldest beyond maxNotes.
func (n *pageNotes) add(p pageNote) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.seq++
	p.seq = n.seq
	if n.wake != nil {
		close(n.wake)
		n.wake = nil
	}
	n.list = append(n.list, p)
	if len(n.list) > maxNotes {
		n.list = n.list[len(n.list)-maxNotes:]
	}
}

// changes returns a channel closed by the next note.
func (n *pageNotes) changes() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.wake == nil {
		n.wake = make(chan struct{})
	}
	return n.wake
}

// since returns the notes added after mark.
func (n *pageNotes) since(mark int) []pageNote {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []pageNote
	for _, p := range n.list {
		if p.seq > mark {
			out = append(out, p)
		}
	}
	return out
}

// noteResult adds to r what the tab's pages asked since mark: each as a
// field of the result and an effect, so "no visible effect" is never said
// of an action that opened a dialog.
func (t *Tab) noteResult(ctx context.Context, r *Result, mark int) {
	t.noteWindows(ctx, r, mark)
	for _, p := range t.notes.since(mark) {
		switch {
		case p.dialog != nil:
			r.Dialogs = append(r.Dialogs, *p.dialog)
			addEffect(r, "dialog")
		case p.chooser != nil:
			t.noteChooser(ctx, r, p.chooser)
		case p.auth != nil:
			c := *p.auth
			r.Auth = &c
			addEffect(r, "a password asked")
		case p.download != "":
			t.noteDownload(r, p.download)
		}
	}
}

// addEffect adds an effect once and marks the result changed.
func addEffect(r *Result, e string) {
	for _, x := range r.Effects {
		if x == e {
			r.Changed = true
			return
		}
	}
	r.Effects = append(r.Effects, e)
	r.Changed = true
}
