package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// A click on a file input (or the label or button a page shows for it)
// opens a file chooser. The tab intercepts it: no OS dialog, which a
// headless browser cannot show anyway; the chooser is an event and a note
// in the action's Result, answered by setting files on its input (an
// upload without a ref).

// FileChooser is a file chooser a page opened.
type FileChooser struct {
	// ID numbers the tab's choosers.
	ID int `json:"id"`
	// Name is the input's label, aria-label, title or name.
	Name string `json:"name,omitempty"`
	// Multiple: the input takes several files.
	Multiple bool `json:"multiple,omitempty"`
	// Accept is the input's accept attribute (".pdf,image/*"), the types
	// its chooser offers.
	Accept string `json:"accept,omitempty"`
	// Files are the names of the files the input holds now.
	Files []string `json:"files,omitempty"`
	// Frame is the frame the input is in.
	Frame string `json:"frame,omitempty"`
	// Err says why files cannot be set through the chooser: one a page
	// opened through the File System Access API has no input.
	Err string `json:"err,omitempty"`
}

// String describes the chooser as a model or a person reads it.
func (c FileChooser) String() string {
	var sb strings.Builder
	sb.WriteString("a file chooser opened")
	if c.Name != "" {
		fmt.Fprintf(&sb, " for %q", clipText(c.Name, 60))
	}
	var about []string
	if c.Accept != "" {
		about = append(about, "accepts "+clipText(c.Accept, 80))
	}
	if c.Multiple {
		about = append(about, "several files")
	} else {
		about = append(about, "one file")
	}
	if len(c.Files) > 0 {
		about = append(about, "holds "+strings.Join(c.Files, ", "))
	}
	fmt.Fprintf(&sb, " (%s)", strings.Join(about, "; "))
	if c.Err != "" {
		sb.WriteString(": " + c.Err)
	} else {
		sb.WriteString(", waiting for files")
	}
	return sb.String()
}

// choosers is a tab's file chooser state.
type choosers struct {
	mu      sync.Mutex
	next    int
	pending *openChooser
}

// openChooser is a chooser waiting for files. ready is closed once what
// the input says of itself (name, accept, files) is in fc.
type openChooser struct {
	fc      FileChooser
	sess    *chromedp.Target
	node    cdp.BackendNodeID
	ready   chan struct{}
	started time.Time
}

// FileChooser returns the file chooser waiting for files, if any.
func (t *Tab) FileChooser() (FileChooser, bool) {
	t.fc.mu.Lock()
	defer t.fc.mu.Unlock()
	if t.fc.pending == nil {
		return FileChooser{}, false
	}
	return t.fc.pending.fc, true
}

// interceptChoosers turns the tab's file choosers into events.
func (t *Tab) interceptChoosers(ctx context.Context, sess *chromedp.Target) error {
	_, err := cdp.Call(ctx, sess, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: true})
	return err
}

// chooserOpened runs in sess's read loop when its page opens a chooser.
// What the input says of itself is read in a goroutine, which then emits
// the event.
func (t *Tab) chooserOpened(sess *chromedp.Target, ev *page.EventFileChooserOpened) {
	oc := &openChooser{sess: sess, node: ev.BackendNodeID, ready: make(chan struct{}), started: time.Now(),
		fc: FileChooser{Multiple: ev.Mode == page.FileChooserOpenedModeSelectMultiple, Frame: string(ev.FrameID)}}
	if ev.BackendNodeID == 0 {
		oc.fc.Err = "the page asked for files without a file input (the File System Access API), which cannot be answered here"
	}
	t.fc.mu.Lock()
	t.fc.next++
	oc.fc.ID = t.fc.next
	t.fc.pending = oc
	t.fc.mu.Unlock()
	t.notes.add(pageNote{chooser: oc})
	go func() {
		ctx, cancel := context.WithTimeout(t.dead, 2*time.Second)
		defer cancel()
		if oc.node != 0 {
			if err := t.describeChooser(ctx, oc); err != nil && context.Cause(t.dead) == nil {
				t.b.opts.Logf("tab %s: file chooser: %v", t.id, err)
			}
		}
		close(oc.ready)
		t.fc.mu.Lock()
		fc := oc.fc
		t.fc.mu.Unlock()
		t.b.emit(Event{Kind: FileChooserOpened, Tab: t.Info(), Chooser: &fc})
	}()
}

// inputInfoJS is what a file input says of itself.
const inputInfoJS = `function() {
  const by = (this.getAttribute('aria-labelledby') || '').split(/\s+/).map((id) => { const e = id && this.getRootNode().getElementById(id); return e ? e.textContent : ''; }).join(' ');
  const lab = this.labels && this.labels.length ? this.labels[0].innerText : '';
  return {tag: this.tagName.toLowerCase(), type: (this.type || '').toLowerCase(), multiple: !!this.multiple, disabled: !!this.disabled,
    accept: this.accept || '', name: (by.trim() || this.getAttribute('aria-label') || lab || this.title || this.name || '').replace(/\s+/g, ' ').trim(),
    files: this.files ? Array.from(this.files, (f) => f.name) : []};
}`

// inputInfo is inputInfoJS's answer.
type inputInfo struct {
	Tag      string   `json:"tag"`
	Type     string   `json:"type"`
	Multiple bool     `json:"multiple"`
	Disabled bool     `json:"disabled"`
	Accept   string   `json:"accept"`
	Name     string   `json:"name"`
	Files    []string `json:"files"`
}

// readInput runs inputInfoJS on the object.
func readInput(ctx context.Context, sess *chromedp.Target, obj runtime.RemoteObjectID) (inputInfo, error) {
	var in inputInfo
	res, err := cdp.Call(ctx, sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: inputInfoJS, ObjectID: obj, ReturnByValue: new(true), Silent: new(true)})
	if err != nil {
		return in, err
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		return in, fmt.Errorf("read the input: %s", exceptionText(res.ExceptionDetails))
	}
	return in, json.Unmarshal(res.Result.Value, &in)
}

// describeChooser reads the chooser's input: its name, accept and files.
func (t *Tab) describeChooser(ctx context.Context, oc *openChooser) error {
	obj, err := cdp.Call(ctx, oc.sess, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: oc.node, ObjectGroup: "vroom"})
	if err != nil || obj.Object == nil {
		return fmt.Errorf("resolve the input: %w", err)
	}
	defer t.release(ctx, oc.sess, obj.Object.ObjectID)
	in, err := readInput(ctx, oc.sess, obj.Object.ObjectID)
	if err != nil {
		return err
	}
	t.fc.mu.Lock()
	oc.fc.Name, oc.fc.Accept, oc.fc.Multiple, oc.fc.Files = in.Name, in.Accept, in.Multiple, in.Files
	t.fc.mu.Unlock()
	return nil
}

// noteChooser waits (briefly) for what a chooser raised during the action
// says of its input, and puts it in the result.
func (t *Tab) noteChooser(ctx context.Context, r *Result, oc *openChooser) {
	select {
	case <-oc.ready:
	case <-ctx.Done():
	case <-time.After(2 * time.Second):
	}
	t.fc.mu.Lock()
	fc := oc.fc
	t.fc.mu.Unlock()
	r.Chooser = &fc
	addEffect(r, "file chooser")
}

// upload sets the files of a file input, as a file chooser would: the
// input of ref, or, without one, the input of the chooser waiting.
func (t *Tab) upload(ctx context.Context, s *step) error {
	if s.a.Ref == "" {
		return t.answerChooser(ctx, s)
	}
	w, a := s.w, s.a
	if err := boot(ctx, w); err != nil {
		return err
	}
	res, err := cdp.Call(ctx, w.sess, runtime.Evaluate, runtime.EvaluateParams{
		Expression: fmt.Sprintf("__vroom.fileInputOf(%q)", a.Ref), ContextID: w.ctxID, Silent: new(true),
	})
	if err != nil {
		return err
	}
	if res.Result == nil || res.Result.ObjectID == "" {
		return prepError(a.Ref, prep{Err: "gone"})
	}
	defer t.release(ctx, w.sess, res.Result.ObjectID)
	return t.setFiles(ctx, s, w.sess, res.Result.ObjectID, a.Ref)
}

// answerChooser sets the files on the input of the chooser waiting.
func (t *Tab) answerChooser(ctx context.Context, s *step) error {
	t.fc.mu.Lock()
	oc := t.fc.pending
	t.fc.mu.Unlock()
	if oc == nil {
		return fmt.Errorf("%w: no file chooser is open; give the file input's ref", ErrBadArgument)
	}
	if oc.fc.Err != "" {
		return fmt.Errorf("%w: %s", ErrBadArgument, oc.fc.Err)
	}
	obj, err := cdp.Call(ctx, oc.sess, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: oc.node, ObjectGroup: "vroom"})
	if err != nil || obj.Object == nil {
		t.clearChooser(oc)
		return &ActionError{Ref: "the file chooser", Reason: "its input is no longer on the page", Err: ErrStaleRef}
	}
	defer t.release(ctx, oc.sess, obj.Object.ObjectID)
	if err := t.setFiles(ctx, s, oc.sess, obj.Object.ObjectID, "the file chooser's input"); err != nil {
		return err
	}
	t.clearChooser(oc)
	return nil
}

// clearChooser forgets oc once answered or gone.
func (t *Tab) clearChooser(oc *openChooser) {
	t.fc.mu.Lock()
	if t.fc.pending == oc {
		t.fc.pending = nil
	}
	t.fc.mu.Unlock()
}

// setFiles checks the input as a person's chooser would — an enabled
// file input, one file unless it takes several — and sets the files. A
// file outside the types it accepts is set (a chooser offers "All files"
// too), and the result says so.
func (t *Tab) setFiles(ctx context.Context, s *step, sess *chromedp.Target, obj runtime.RemoteObjectID, what string) error {
	in, err := readInput(ctx, sess, obj)
	if err != nil {
		return err
	}
	if in.Tag != "input" || in.Type != "file" {
		kind := in.Tag
		if in.Tag == "input" {
			kind = "input type=" + in.Type
		}
		return &ActionError{Ref: what, Reason: "not a file input (" + kind + ")"}
	}
	if in.Disabled {
		return &ActionError{Ref: what, Reason: "disabled"}
	}
	if len(s.a.Files) > 1 && !in.Multiple {
		return fmt.Errorf("%w: %s takes one file, %d given", ErrBadArgument, what, len(s.a.Files))
	}
	files := make([]string, len(s.a.Files))
	var off []string
	for i, f := range s.a.Files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrBadArgument, f, err)
		}
		files[i] = abs
		if !accepts(in.Accept, abs) {
			off = append(off, filepath.Base(abs))
		}
	}
	if _, err := cdp.Call(ctx, sess, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: files, ObjectID: obj}); err != nil {
		return err
	}
	s.r.Note = "set " + strings.Join(baseNames(files), ", ")
	if len(off) > 0 {
		s.r.Note += fmt.Sprintf(" (not of the types it accepts, %s: %s)", in.Accept, strings.Join(off, ", "))
	}
	return nil
}

func baseNames(files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.Base(f)
	}
	return out
}

// accepts reports whether a file input's accept attribute admits path,
// by its extension or the MIME type that extension names.
func accepts(accept, path string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	ext := strings.ToLower(filepath.Ext(path))
	typ, _, _ := strings.Cut(mime.TypeByExtension(ext), ";")
	for _, a := range strings.Split(strings.ToLower(accept), ",") {
		a = strings.TrimSpace(a)
		switch {
		case a == "":
		case strings.HasPrefix(a, "."):
			if a == ext {
				return true
			}
		case strings.HasSuffix(a, "/*"):
			if strings.HasPrefix(typ, strings.TrimSuffix(a, "*")) {
				return true
			}
		case a == typ:
			return true
		}
	}
	return false
}

// validateUpload checks an upload's files before anything touches the
// page: each an existing regular file. Without a ref the upload answers
// the file chooser waiting.
func validateUpload(a Action) error {
	if len(a.Files) == 0 {
		return fmt.Errorf("%w: files are required", ErrBadArgument)
	}
	for _, f := range a.Files {
		st, err := os.Stat(f)
		switch {
		case os.IsNotExist(err):
			return fmt.Errorf("%w: %s: no such file", ErrBadArgument, f)
		case err != nil:
			return fmt.Errorf("%w: %s: %w", ErrBadArgument, f, err)
		case st.IsDir():
			return fmt.Errorf("%w: %s is a folder, not a file", ErrBadArgument, f)
		case !st.Mode().IsRegular():
			return fmt.Errorf("%w: %s is not a regular file", ErrBadArgument, f)
		}
	}
	return nil
}
