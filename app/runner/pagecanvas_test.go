package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// A canvas spreadsheet whose transparent editor moves under the pointer
// on mousedown, as real ones place theirs; each committed cell is
// reported to the site.
const editorSheet = `<!doctype html><html><head><title>Sheet with an editor</title><style>
body{margin:0;font:12px sans-serif} #wrap{position:relative;width:800px;height:500px}
canvas{display:block}
/* The editor sits over the cell under the pointer, transparent until typed in,
   as canvas spreadsheets place theirs. */
#editor{position:absolute;left:0;top:0;width:100px;height:25px;box-sizing:border-box;border:0;padding:4px;margin:0;
  background:transparent;color:transparent;caret-color:transparent;outline:none;resize:none;overflow:hidden;font:12px sans-serif;z-index:2}
#editor.editing{background:#fff;color:#000;caret-color:auto;outline:2px solid #36c}
</style></head><body>
<div id="wrap"><canvas id="c" width="800" height="500"></canvas><textarea id="editor" aria-label="Cell editor" spellcheck="false"></textarea></div>
<script>function report(e){fetch('/event',{method:'POST',body:new URLSearchParams({e})});}
// A spreadsheet drawn on a canvas, 8 columns A-H of 100px and 19 rows of
// 25px under a 25px header. On mousedown the editor moves to the cell under
// the pointer and takes the focus; typing goes into it, Enter commits and
// moves down, as in real canvas spreadsheets.
const c = document.getElementById('c'), g = c.getContext('2d'), ed = document.getElementById('editor');
window.cells = {}; window.selected = null;
const colName = (i) => String.fromCharCode(65 + i);
function draw() {
  g.fillStyle = '#fff'; g.fillRect(0, 0, 800, 500);
  g.strokeStyle = '#ccc'; g.fillStyle = '#000'; g.font = '12px sans-serif';
  for (let i = 0; i < 8; i++) g.fillText(colName(i), i * 100 + 45, 17);
  for (let r = 0; r < 19; r++) for (let i = 0; i < 8; i++) {
    const x = i * 100, y = 25 + r * 25, id = colName(i) + (r + 1);
    if (id === selected) { g.fillStyle = '#cde'; g.fillRect(x, y, 100, 25); g.fillStyle = '#000'; }
    g.strokeRect(x, y, 100, 25);
    if (cells[id]) g.fillText(cells[id], x + 4, y + 17);
  }
}
function place(id) {
  const m = id.match(/([A-Z])(\d+)/), col = m[1].charCodeAt(0) - 65, row = +m[2] - 1;
  ed.style.left = (col * 100) + 'px'; ed.style.top = (25 + row * 25) + 'px';
  ed.value = cells[id] || ''; ed.classList.remove('editing');
}
function commit() {
  if (selected && ed.classList.contains('editing')) { if (ed.value) cells[selected] = ed.value; else delete cells[selected]; report(selected + '=' + ed.value); }
  ed.classList.remove('editing');
}
function pick(e) {
  const r = document.getElementById('wrap').getBoundingClientRect();
  const x = e.clientX - r.left, y = e.clientY - r.top;
  const col = Math.floor(x / 100), row = Math.floor((y - 25) / 25);
  if (row < 0 || col < 0 || col > 7 || row > 18) return;
  commit();
  selected = colName(col) + (row + 1);
  place(selected); draw();
  // Focus after the press, as the sheets do: the press itself must not
  // take the focus away from the editor.
  e.preventDefault(); ed.focus();
}
c.addEventListener('mousedown', pick);
ed.addEventListener('mousedown', pick);
ed.addEventListener('input', () => { ed.classList.add('editing'); });
ed.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  e.preventDefault(); commit();
  const m = selected.match(/([A-Z])(\d+)/); selected = m[1] + (+m[2] + 1);
  place(selected); draw();
});
draw();
</script>
</body></html>
`

// TestFlowCanvasSheetEditor: a cell of the canvas sheet edited through
// screenshot, click_at, type_focused and Enter, judged by the site.
func TestFlowCanvasSheetEditor(t *testing.T) {
	t.Parallel()
	if f := canvasFlow(t); f.total() != 5 {
		t.Fatalf("%d calls, want 5: %v", f.total(), f.calls)
	}
}

// canvasFlow puts 42 in cell B2 of the canvas sheet and waits for the
// site to have it.
func canvasFlow(tb testing.TB) *flowTally {
	f, s := pageFlow(tb, "/sheet", "Put 42 in cell B2",
		func(r *modeltest.Request) modeltest.Reply { return apptest.Call("screenshot") },
		// B2: column B is 100-200 px, row 2 is 50-75 px under the header.
		func(r *modeltest.Request) modeltest.Reply { return apptest.Call("click_at", "x", 150, "y", 62) },
		func(r *modeltest.Request) modeltest.Reply { return apptest.Call("type_focused", "text", "42") },
		func(r *modeltest.Request) modeltest.Reply { return apptest.Call("press", "key", "Enter") },
		func(r *modeltest.Request) modeltest.Reply {
			return apptest.Done(r.LastText(), !strings.HasPrefix(r.LastText(), "error"))
		})
	testkit.WaitFor(tb, 5*time.Second, "the cell to reach the site", func() bool {
		_, events, _ := s.got()
		return slices.Contains(events, "B2=42")
	})
	return f
}

// TestFileTextPDF: a PDF's text comes through a real extractor; a file
// that is not text is refused, naming it.
func TestFileTextPDF(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pdf := filepath.Join(dir, "invoice.pdf")
	if err := os.WriteFile(pdf, apptest.OnePagePDF("Invoice March 2026", "Total due: 123.45 EUR"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		testenv.Missing(t, "pdftotext (poppler-utils; build/deps.sh installs it)")
	}
	got, err := fileText(t.Context(), pdf, "application/pdf")
	if err != nil {
		t.Fatalf("the PDF's text: %v", err)
	}
	if !strings.Contains(got, "Total due: 123.45 EUR") {
		t.Fatalf("the PDF's text: %q", got)
	}
	bin := filepath.Join(dir, "x.bin")
	if err := os.WriteFile(bin, []byte{0, 1, 2}, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := fileText(t.Context(), bin, "application/octet-stream"); err == nil || !strings.Contains(err.Error(), "x.bin is not text") {
		t.Fatalf("a binary file: %v", err)
	}
}
