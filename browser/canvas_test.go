package browser

import (
	"context"
	"maps"
	"testing"
	"time"
)

// TestCanvasSheetBehindAnotherTab: a canvas spreadsheet that moves a
// transparent editor under the pointer on mousedown, edited by screenshot
// and click_at in a tab that is not the window's front one — another
// agent's tab, or a blank one opened ahead of the next agent, came after
// it. A capture of such a tab waited for a frame Chromium never drew, so
// click_at (which compares the screen before and after) ended in "page
// not responding" at the call's deadline.
func TestCanvasSheetBehindAnotherTab(t *testing.T) {
	t.Parallel()
	sheet := openTab(t, "/sheet-editor.html")
	openTab(t, "/inner.html")
	cells := map[string][2]float64{"C5": {250, 137}, "D6": {350, 162}, "A1": {50, 37}}
	for _, cell := range []string{"C5", "D6", "A1"} {
		p := cells[cell]
		for _, step := range []struct {
			what string
			do   func(ctx context.Context) error
		}{
			{"screenshot", func(ctx context.Context) error { _, err := sheet.Screenshot(ctx, ScreenshotOptions{}); return err }},
			{"click_at", func(ctx context.Context) error {
				r, err := sheet.ClickAt(ctx, p[0], p[1])
				if err == nil && !r.Changed {
					t.Errorf("click_at %s: %s", cell, r)
				}
				return err
			}},
			{"type_focused", func(ctx context.Context) error { _, err := sheet.TypeFocused(ctx, cell+"!"); return err }},
			{"press", func(ctx context.Context) error { _, err := sheet.Press(ctx, "Enter"); return err }},
		} {
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
			start := time.Now()
			err := step.do(ctx)
			cancel()
			if err != nil {
				t.Fatalf("%s on %s after %v: %v", step.what, cell, time.Since(start), err)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("%s on %s took %v", step.what, cell, took)
			}
		}
	}
	got := eval[map[string]string](t, sheet, `window.cells`)
	if want := map[string]string{"C5": "C5!", "D6": "D6!", "A1": "A1!"}; !maps.Equal(got, want) {
		t.Errorf("cells = %v, want %v", got, want)
	}
}
