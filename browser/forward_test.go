package browser

import (
	"testing"
)

// TestForwardDragHoldsTheButton: a person's drag through the live view
// carries the held button on its moves, so it selects text and moves a
// slider's thumb, as in Chrome.
func TestForwardDragHoldsTheButton(t *testing.T) {
	t.Parallel()
	ctx := tctx(t)
	tab, err := testBrowser.Open(ctx, `data:text/html,<body style="margin:0;font:20px sans-serif"><p id=p style="margin:0;width:1000px">Select these words by dragging across them</p><input id=r type=range min=0 max=100 value=0 style="margin:40px 0 0 0;width:400px"></body>`)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tab.Close(ctx) })
	// The view shows the viewport at half size.
	send := func(typ string, x, y float64) {
		t.Helper()
		if err := tab.ForwardPointer(ctx, PointerInput{Type: typ, X: x / 2, Y: y / 2, ViewWidth: 640, ViewHeight: 400}); err != nil {
			t.Fatal(err)
		}
	}
	drag := func(x0, y, x1, _ float64) {
		send("move", x0, y)
		send("down", x0, y)
		for i := 1; i <= 10; i++ {
			send("move", x0+(x1-x0)*float64(i)/10, y)
		}
		send("up", x1, y)
	}
	drag(5, 12, 300, 0)
	if got := eval[string](t, tab, `getSelection().toString()`); len(got) < 10 {
		t.Errorf("selected %q", got)
	}
	r := eval[[]float64](t, tab, `(() => { const b = document.getElementById('r').getBoundingClientRect(); return [b.left, b.top + b.height / 2, b.width]; })()`)
	drag(r[0]+4, r[1], r[0]+r[2]*0.75, 0)
	if v := eval[int](t, tab, `+document.getElementById('r').value`); v < 50 {
		t.Errorf("slider at %d after the drag", v)
	}
}
