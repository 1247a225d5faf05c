package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
)

// ShowAt makes the tab's viewport width x height CSS pixels at scale
// device pixels per CSS pixel: the person's own tab is laid out at the
// size its view shows it (it reflows, not scales), at the screen's pixel
// ratio so its text is as sharp as the screen allows. Page zoom is the
// same call: a page zoomed to z is laid out z times narrower and drawn
// z times larger. A tab an agent holds keeps its own viewport: its lease
// refuses the person.
func (t *Tab) ShowAt(ctx context.Context, width, height int, scale float64) error {
	if width < minShowSide || height < minShowSide || width > maxFitSide || height > maxFitSide {
		return fmt.Errorf("show at: %w: %dx%d", ErrBadArgument, width, height)
	}
	if scale <= 0 || scale > 8 {
		return fmt.Errorf("show at: %w: scale %g", ErrBadArgument, scale)
	}
	cctx, cancel, err := t.begin(ctx)
	if err != nil {
		return fmt.Errorf("show at: %w", err)
	}
	defer cancel()
	if _, err := cdp.Call(cctx, t.target(), emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(width), Height: int64(height), DeviceScaleFactor: scale,
	}); err != nil {
		return fmt.Errorf("show at: %w", t.fail(cctx, err))
	}
	// A still page may not paint at its new size for a long while: the
	// restarted screencast begins with a frame of it.
	if err := t.sc.refresh(cctx); err != nil {
		return fmt.Errorf("show at: restart the live view: %w", t.fail(cctx, err))
	}
	return nil
}

// minShowSide is the smallest viewport side ShowAt accepts: a window
// made very small, or a page zoomed far in, still lays out at least this.
const minShowSide = 50
