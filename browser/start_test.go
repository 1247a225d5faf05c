package browser

import (
	"context"
	"errors"
	"testing"
)

// TestStartInBackground: Start returns at once; Open waits for the start,
// and a Close while it is under way ends it without a leak or a hang.
func TestStartInBackground(t *testing.T) {
	t.Parallel()
	ctx := tctx(t)
	b := Start(context.Background(), Options{})
	tab, err := b.Open(ctx, site.URL+"/form.html")
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Info().URL; got != site.URL+"/form.html" {
		t.Errorf("opened %q", got)
	}
	if err := b.StartErr(); err != nil {
		t.Errorf("start: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("close: %v", err)
	}

	early := Start(context.Background(), Options{})
	if err := early.Close(); err != nil {
		t.Errorf("close during the start: %v", err)
	}
	if _, err := early.Open(ctx, ""); !errors.Is(err, ErrBrowserClosed) {
		t.Errorf("open after close: %v", err)
	}
}

// TestStartFailure: a start that fails reaches Open and StartErr as
// ErrBrowserClosed naming the cause.
func TestStartFailure(t *testing.T) {
	t.Parallel()
	b := Start(context.Background(), Options{ExecPath: "/nonexistent/chromium"})
	if _, err := b.Open(tctx(t), ""); !errors.Is(err, ErrBrowserClosed) {
		t.Fatalf("open: %v", err)
	}
	if b.StartErr() == nil {
		t.Error("StartErr is nil after a failed start")
	}
	if err := b.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}
