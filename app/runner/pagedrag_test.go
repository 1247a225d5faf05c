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

const html5Board = `<!doctype html><title>Sprint board</title>` + reportJS + `
<style>.cols{display:flex;gap:20px}.col{width:200px;min-height:300px;border:1px solid #999;padding:8px}.card{padding:10px;margin:6px;border:1px solid #333;background:#fff}</style>
<div class="cols">
<section class="col" aria-label="To do"><h2>To do</h2><div class="card" draggable="true">Fix the login bug</div></section>
<section class="col" aria-label="Done"><h2>Done</h2></section></div>
<button onclick="document.querySelectorAll('.card').forEach(c=>c.remove())">Clear the board</button>
<script>
let dragged = null;
document.querySelectorAll('.card').forEach(c => c.addEventListener('dragstart', e => { dragged = c; e.dataTransfer.setData('text/plain', c.textContent); }));
document.querySelectorAll('.col').forEach(col => {
  col.addEventListener('dragover', e => e.preventDefault());
  col.addEventListener('drop', e => { e.preventDefault(); col.appendChild(dragged); report(dragged.textContent + ' to ' + col.getAttribute('aria-label')); });
});
</script>`

const pointerBoard = `<!doctype html><title>Tasks</title>` + reportJS + `
<style>.cols{display:flex;gap:20px}.col{width:200px;min-height:300px;border:1px solid #999;padding:8px}.card{padding:10px;margin:6px;border:1px solid #333;background:#fff;touch-action:none}</style>
<div class="cols">
<section class="col" aria-label="Backlog"><h2>Backlog</h2><div class="card" role="button" tabindex="0" aria-roledescription="sortable">Book flights</div></section>
<section class="col" aria-label="Done"><h2>Done</h2></section></div>
<script>
// As sortable libraries do: the drag starts only after the pointer has
// moved a few pixels with the button down, and follows each move.
document.querySelectorAll('.card').forEach(card => card.addEventListener('pointerdown', e => {
  const x0 = e.clientX, y0 = e.clientY; let moves = 0, active = false;
  card.setPointerCapture(e.pointerId);
  const move = ev => { moves++; if (Math.hypot(ev.clientX - x0, ev.clientY - y0) > 5) active = true;
    if (active) card.style.transform = 'translate(' + (ev.clientX - x0) + 'px,' + (ev.clientY - y0) + 'px)'; };
  const up = ev => { card.removeEventListener('pointermove', move); card.removeEventListener('pointerup', up);
    card.style.transform = ''; if (!active || moves < 3) return;
    card.style.pointerEvents = 'none'; const over = document.elementFromPoint(ev.clientX, ev.clientY); card.style.pointerEvents = '';
    const col = over && over.closest('.col'); if (!col) return; col.appendChild(card);
    report(card.textContent + ' to ' + col.getAttribute('aria-label')); };
  card.addEventListener('pointermove', move); card.addEventListener('pointerup', up);
}));
</script>`

// boardFlow moves the card to Done on page with the drag tool and
// returns what the board reported.
func boardFlow(tb testing.TB, page, card string) (*flowTally, []string) {
	s := newAsksSite(tb)
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
	testkit.WaitFor(tb, 5*time.Second, "the board's report", func() bool { _, events, _ = s.got(); return len(events) > 0 })
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
	s := newAsksSite(t)
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
