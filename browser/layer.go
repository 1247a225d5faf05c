package browser

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
)

// framesWithin finds the frames whose iframe lies inside the element
// o.Within, a child of frame parent. A consent manager's or a
// newsletter's dialog is often another site's page in an iframe over this
// one; the person closes it with that page's controls, so a look within
// the layer must show them, and its text where the iframe stands. It runs
// before the parent is walked: finding an iframe names it for the
// parent's reader. One level deep.
func (t *Tab) framesWithin(ctx context.Context, parent *cdp.Frame, fs []*cdp.Frame, within string) []layerFrame {
	var out []layerFrame
	for _, c := range fs {
		if c.ParentID != parent.ID {
			continue
		}
		box, err := t.ownerBox(ctx, c, fs, within)
		if err == nil && box.Visible && box.Inside {
			out = append(out, layerFrame{c, box})
		}
	}
	return out
}

// layerFrame is a frame inside a layer and its iframe's box.
type layerFrame struct {
	f   *cdp.Frame
	box frameBox
}

// observeLayerFrames adds to m the controls and text of the frames
// framesWithin found, their parent at parentOff in the top viewport; a
// frame that cannot be walked counts as unobserved.
func (t *Tab) observeLayerFrames(ctx context.Context, m *merge, lfs []layerFrame, fs []*cdp.Frame, parentOff [2]float64, o ObserveOptions) {
	for _, lf := range lfs {
		fo, err := t.observeFrame(ctx, lf.f, map[string]any{"limit": o.Limit, "roles": o.Roles, "query": o.Query, "textMax": o.TextMax})
		if err != nil {
			m.obs.Unobserved++
			continue
		}
		m.addFrame(fo, false)
		m.addText(lf.f.ID, fo, false)
		t.addControls(m, fo, lf.f, fs, [2]float64{parentOff[0] + lf.box.X, parentOff[1] + lf.box.Y}, false)
	}
}
