package runner

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/browser"
	"vroom/internal/modeltest"
	"vroom/internal/testkit"
)

// Boards a card is dragged on, and the bad input of the page tools.

// boardFlow moves the card to Done on page with the drag tool and
// returns what the board reported.
func boardFlow(tb testing.TB, page, card string) (*flowTally, []string) {
	s := apptest.NewAsksSite(tb)
	h := newHarness(tb, nil)
	f := &flowTally{}
	runFlow(tb, h, "Move the card to Done", s.URL+page, f, stepper(f,
		func(r *modeltest.Request) modeltest.Reply {
			ref := modeltest.Ref(r.Text(), "draggable", card)
			if ref == "" {
				ref = modeltest.Ref(r.Text(), "button", card)
			}
			return apptest.Call("drag", "ref", ref, "to", modeltest.Ref(r.Text(), "region", "Done"))
		},
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Done(r.LastText(), !strings.HasPrefix(r.LastText(), "error"))
		}))
	var events []string
	testkit.WaitFor(tb, 5*time.Second, "the board's report", func() bool { events = s.Events(); return len(events) > 0 })
	return f, events
}

// boardMoved checks a board flow: the card reported in Done, in one drag.
func boardMoved(t *testing.T, page, card string) {
	f, got := boardFlow(t, page, card)
	if !slices.Equal(got, []string{card + " to Done"}) {
		t.Fatalf("the board reported %q", got)
	}
	if f.total() != 2 {
		t.Fatalf("%d calls, want 2: %v", f.total(), f.calls)
	}
}

// TestFlowBoards: a card moved to Done on an HTML5 drag-and-drop board
// and on a pointer-driven sortable, in one drag each.
func TestFlowBoards(t *testing.T) {
	t.Parallel()
	t.Run("html5", func(t *testing.T) {
		t.Parallel()
		boardMoved(t, "/board", "Fix the login bug")
	})
	t.Run("pointer", func(t *testing.T) {
		t.Parallel()
		boardMoved(t, "/sortable", "Book flights")
	})
}

// TestPageToolErrors: bad input to the page tools is one line naming
// what is wrong.
func TestPageToolErrors(t *testing.T) {
	t.Parallel()
	s := apptest.NewAsksSite(t)
	h := newHarness(t, nil)
	ctx := apptest.Context(t)
	dir := filepath.Join(t.TempDir(), "downloads")
	h.tabs.SetDownloads(browser.DownloadOptions{Dir: dir, MaxBytes: 1 << 20})
	tab, err := h.tabs.OpenTab(ctx, "agent 1", s.URL+"/board")
	if err != nil {
		t.Fatal(err)
	}
	obs, err := tab.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	card := modeltest.Ref(obs.Text, "draggable", "Fix the login bug")
	if _, err := tab.Act(ctx, agents.Action{Kind: agents.ActDialog, Accept: true}); !errors.Is(err, browser.ErrNoDialog) || strings.Contains(err.Error(), "\n") {
		t.Errorf("dialog with none open: %v", err)
	}
	if _, err := tab.Act(ctx, agents.Action{Kind: agents.ActClick, Ref: modeltest.Ref(obs.Text, "button", "Clear the board")}); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Act(ctx, agents.Action{Kind: agents.ActDrag, Ref: card, DX: 200}); !errors.Is(err, browser.ErrStaleRef) || !strings.Contains(err.Error(), card) {
		t.Errorf("a drag from a vanished card: %v", err)
	}
	if _, err := tab.Act(ctx, agents.Action{Kind: agents.ActNavigate, URL: s.URL + "/invoices"}); err != nil {
		t.Fatal(err)
	}
	obs, err = tab.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	o, err := tab.Act(ctx, agents.Action{Kind: agents.ActClick, Ref: modeltest.Ref(obs.Text, "link", "Archive of everything")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(o.Summary, "big.bin failed") || !strings.Contains(o.Summary, "MB") {
		t.Errorf("a download over the cap: %s", o.Summary)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the run's folder holds %d files after a capped download", len(entries))
	}
}
