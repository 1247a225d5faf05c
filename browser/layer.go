package browser

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
)

// framesWithin adds to m the controls of the frames whose iframe lies
// inside the element o.Within, a child of frame parent (at parentOff in the
// top viewport). A consent manager's or a newsletter's dialog is often
// another site's page in an iframe over this one; the person closes it
// with that page's controls, so a look within the layer must show them.
// One level deep; a frame that cannot be walked counts as unobserved.
func (t *Tab) framesWithin(ctx context.Context, m *merge, parent *cdp.Frame, fs []*cdp.Frame, parentOff [2]float64, o ObserveOptions) {
	for _, c := range fs {
		if c.ParentID != parent.ID {
			continue
		}
		box, err := t.ownerBox(ctx, c, fs, o.Within)
		if err != nil || !box.Visible || !box.Inside {
			continue
		}
		fo, err := t.observeFrame(ctx, c, map[string]any{"limit": o.Limit, "roles": o.Roles, "query": o.Query, "textMax": 0})
		if err != nil {
			m.obs.Unobserved++
			continue
		}
		m.addFrame(fo, false)
		t.addControls(m, fo, c, fs, [2]float64{parentOff[0] + box.X, parentOff[1] + box.Y}, false)
	}
}
