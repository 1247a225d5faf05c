package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// The values of the page's masked fields (passwords, card numbers, one-time
// codes), which no request may carry elsewhere. Every action reads them
// before its input, in the call that takes the page's state (fingerprint),
// so the guard's check of a request the input causes knows them without
// asking the page again; they are read in the walker's world, where the
// page's script cannot redefine what a field's value reads as.

// maskedFields are the masked values each frame's document held when an
// action last read them there.
type maskedFields struct {
	mu  sync.Mutex
	per map[cdp.FrameID]maskedRead
}

type maskedRead struct {
	loader cdp.LoaderID
	vals   []string
}

// note keeps vals as frame's document's masked values.
func (m *maskedFields) note(frame cdp.FrameID, loader cdp.LoaderID, vals []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.per == nil {
		m.per = map[cdp.FrameID]maskedRead{}
	}
	m.per[frame] = maskedRead{loader: loader, vals: vals}
}

// navigated forgets what frame's earlier document held once another
// committed in it.
func (m *maskedFields) navigated(frame cdp.FrameID, loader cdp.LoaderID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.per[frame]; ok && r.loader != loader {
		delete(m.per, frame)
	}
}

// known are the masked values read in the documents the tab shows, and
// whether its top frame's (top) were among them.
func (m *maskedFields) known(top cdp.FrameID) (vals []string, read bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for f, r := range m.per {
		read = read || f == top
		for _, v := range r.vals {
			if !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
	}
	return vals, read
}

// errNoWorld: the tab has used no world of its top frame yet.
var errNoWorld = errors.New("no world of the top frame yet")

// usedWorld notes w as the top frame's world when it is: the guard's read
// reaches it without the holder's lock.
func (t *Tab) usedWorld(w *world) {
	if string(w.frame) == t.id && w.sess == t.target() {
		t.topWorld.Store(w)
	}
}

// tookBefore keeps the masked values the action's state before its input
// read (fingerprint with open).
func (t *Tab) tookBefore(s *step) {
	if s.w != nil && s.before.Masked != nil {
		t.masked.note(s.w.frame, s.w.loader, s.before.Masked)
	}
}

// Masked returns the masked fields' values the tab's documents held when
// an action last read them: what a request held for the guard now must
// not carry. It asks the page nothing.
func (t *Tab) Masked() []string {
	vals, _ := t.masked.known(cdp.FrameID(t.id))
	return vals
}

// maskedValues are the values of the page's masked fields: those an
// action read in the top document, else read now. The read does not need
// the tab's holder's lock (the guard asks inside the holder's action): it
// reaches the walker's world of the top frame by name.
func (t *Tab) maskedValues(ctx context.Context) ([]string, error) {
	top := cdp.FrameID(t.id)
	if vals, read := t.masked.known(top); read {
		return vals, nil
	}
	// The top world the tab last used is the document's while it has not
	// navigated; once it has, its context is gone and the call says so.
	var res runtime.EvaluateResult
	err := errNoWorld
	if w := t.topWorld.Load(); w != nil {
		res, err = evalBooting(ctx, w, "__vroom.maskedValues()")
	}
	if err != nil {
		iw, err := cdp.Call(ctx, t.target(), page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: top, WorldName: worldName})
		if err != nil {
			return nil, fmt.Errorf("secrets of %s: masked fields: %w", t.id, t.fail(ctx, err))
		}
		// A world of the walker's name is the walker's; on a document that
		// started before the walker was installed, the call sends it along.
		w := &world{frame: top, ctxID: iw.ExecutionContextID, sess: t.target(), preinstalled: true}
		if res, err = evalBooting(ctx, w, "__vroom.maskedValues()"); err != nil {
			return nil, fmt.Errorf("secrets of %s: masked fields: %w", t.id, t.fail(ctx, err))
		}
	}
	var vals []string
	if res.ExceptionDetails == nil && res.Result != nil {
		// A field whose value cannot be read leaves nothing to send.
		_ = json.Unmarshal(res.Result.Value, &vals)
	}
	return vals, nil
}
