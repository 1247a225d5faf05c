package main

import (
	"image"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
	"vroom/internal/xcursor"
)

// The person's pointer and keys in their own tab in the real window: a
// drag selects a paragraph and Ctrl+C puts it on the X clipboard; Ctrl+V
// pastes the X clipboard into a field; an emoji typed reaches the field;
// the context menu opens a link in a new tab and copies its address.

// notesSite is a dark page with a green paragraph, a yellow field whose
// every input is posted to the site, and a magenta link to /report.
type notesSite struct {
	*httptest.Server
	mu      sync.Mutex
	field   []string
	reports int
	slider  int
}

const notesPage = `<!doctype html><title>Notes</title>
<style>
body{margin:0;background:#263238;font:28px sans-serif}
#p{position:absolute;left:40px;top:40px;width:900px;margin:0;padding:10px 0;background:#00c853;color:#000;white-space:nowrap}
#f{position:absolute;left:40px;top:160px;width:600px;height:56px;font-size:28px;background:#ffeb3b;border:none}
#a{position:absolute;left:40px;top:280px;width:400px;height:60px;background:#e000ff;color:#fff}
#r{position:absolute;left:40px;top:400px;width:400px;height:40px;margin:0}
</style>
<p id=p>Quarterly figures are ready</p>
<input id=f aria-label=Notes autocomplete=off>
<a id=a href="/report">Read the report</a>
<input id=r type=range min=0 max=100 value=0 aria-label=Volume>
<script>f.addEventListener('input', () => fetch('/api/field', {method:'POST', body:f.value}))
r.addEventListener('change', () => fetch('/api/range?v=' + r.value, {method:'POST'}))</script>`

// imePage is one big field whose every input is posted, over a moving
// bar, so the live view has frames whatever the field shows.
const imePage = `<!doctype html><title>Write</title>
<style>body{margin:0;font:40px sans-serif}#f{display:block;box-sizing:border-box;width:100vw;height:60vh;font-size:40px}#bar{height:20px;background:#888}</style>
<div id=bar></div><input id=f aria-label=Text autocomplete=off>
<script>f.addEventListener('input', () => fetch('/api/field', {method:'POST', body:f.value}));let n=0;(function g(){bar.style.width=(n++%100)+'%';requestAnimationFrame(g)})()</script>`

func newNotesSite(t *testing.T) *notesSite {
	s := &notesSite{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /notes", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, notesPage)
	})
	mux.HandleFunc("GET /ime", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, imePage)
	})
	mux.HandleFunc("GET /report", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reports++
		s.mu.Unlock()
		io.WriteString(w, "<!doctype html><title>Report</title><p>The report")
	})
	mux.HandleFunc("POST /api/range", func(w http.ResponseWriter, r *http.Request) {
		v, _ := strconv.Atoi(r.URL.Query().Get("v"))
		s.mu.Lock()
		s.slider = v
		s.mu.Unlock()
	})
	mux.HandleFunc("POST /api/field", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.field = append(s.field, string(b))
		s.mu.Unlock()
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// fieldNow is the field's last value the page posted.
func (s *notesSite) fieldNow() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.field) == 0 {
		return ""
	}
	return s.field[len(s.field)-1]
}

func (s *notesSite) sliderAt() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.slider
}

func (s *notesSite) reportLoads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reports
}

var notesYellow = colourNear(0xff, 0xeb, 0x3b)

// xClipboard is the X clipboard's text now ("" when nobody holds it).
func xClipboard() string {
	out, err := exec.Command("xclip", "-o", "-selection", "clipboard").Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// setXClipboard puts text on the X clipboard as another desktop program
// would: xclip holds it until the test ends.
func setXClipboard(t *testing.T, text string) {
	t.Helper()
	cmd := exec.Command("xclip", "-quiet", "-selection", "clipboard", "-i")
	cmd.Stdin = strings.NewReader(text)
	if err := cmd.Start(); err != nil {
		testenv.Missing(t, "xclip (apt-get install xclip): "+err.Error())
	}
	t.Cleanup(func() {
		if err := cmd.Process.Kill(); err != nil {
			t.Logf("stop xclip: %v", err)
		}
		_ = cmd.Wait() // killed: its status says only that
	})
	testkit.WaitFor(t, 5*time.Second, "xclip holding the clipboard", func() bool { return xClipboard() == text })
}

// TestWindowClipboardMenuEmoji: in the person's tab, the cursor follows
// the page; a slider's thumb follows a drag; a drag across a paragraph and
// Ctrl+C put its text on the X clipboard; text another
// program put there is pasted by Ctrl+V; an emoji typed reaches the page's
// field; the context menu on a link opens it in a new tab (the site serves
// it) and copies its address to the X clipboard.
func TestWindowClipboardMenuEmoji(t *testing.T) {
	testenv.NeedDisplay(t)
	if _, err := exec.LookPath("xclip"); err != nil {
		testenv.Missing(t, "xclip (apt-get install xclip)")
	}
	site := newNotesSite(t)
	d := startWindowApp(t, modeltest.New(t))
	openInView(t, d, site.URL+"/notes")
	img := d.await(t, "the notes shown", func(img image.Image) bool {
		return region(img, chatGreen).Dx() > 300 && region(img, notesYellow).Dx() > 200 && region(img, chatMagenta).Dx() > 150
	})
	para, field, link := region(img, chatGreen), region(img, notesYellow), region(img, chatMagenta)
	pt := func(x, y int) []string {
		return []string{"mousemove", "--window", d.window, strconv.Itoa(x), strconv.Itoa(y)}
	}

	checkCursors(t, d, para, link)

	// The slider's thumb, at its left end, dragged three quarters along.
	scale := float64(link.Dx()) / 400
	sy := link.Min.Y + int((400+20-280)*scale)
	sx := link.Min.X + int(8*scale)
	drag := append(pt(sx, sy), "mousedown", "1")
	for i := 1; i <= 8; i++ {
		drag = append(drag, append([]string{"sleep", "0.05"}, pt(sx+int(300*scale)*i/8, sy)...)...)
	}
	d.xdo(t, append(drag, "sleep", "0.1", "mouseup", "1")...)
	testkit.WaitFor(t, 15*time.Second, "the page's slider dragged past half way", func() bool { return site.sliderAt() > 50 })

	// Drag across the paragraph with the button held, then Ctrl+C.
	y := (para.Min.Y + para.Max.Y) / 2
	args := append(pt(para.Min.X+2, y), "mousedown", "1")
	for i := 1; i <= 8; i++ {
		args = append(args, append([]string{"sleep", "0.05"}, pt(para.Min.X+2+(para.Dx()-4)*i/8, y)...)...)
	}
	d.xdo(t, append(args, "sleep", "0.1", "mouseup", "1")...)
	d.xdo(t, "key", "ctrl+c")
	const para0 = "Quarterly figures are ready"
	testkit.WaitFor(t, 15*time.Second, "the paragraph on the X clipboard", func() bool { return strings.TrimSpace(xClipboard()) == para0 })

	// The X clipboard pasted into the field, then an emoji typed after it.
	const desk = "from the desktop"
	setXClipboard(t, desk)
	d.clickAt(t, image.Pt((field.Min.X+field.Max.X)/2, (field.Min.Y+field.Max.Y)/2))
	d.xdo(t, "sleep", "0.3")
	d.xdo(t, "key", "ctrl+v")
	testkit.WaitFor(t, 15*time.Second, "the page's field holding the pasted text", func() bool { return site.fieldNow() == desk })
	// xdotool types a character the keymap lacks by mapping it to a spare
	// key for the stroke: a long stroke lets GTK read the key while the
	// mapping holds.
	d.xdo(t, "type", "--delay", "400", "😀")
	testkit.WaitFor(t, 15*time.Second, "the emoji in the page's field", func() bool { return site.fieldNow() == desk+"😀" })

	// Right-click the link: Open link in new tab (the menu's first item),
	// then Copy link address (its second).
	at := image.Pt(link.Min.X+40, (link.Min.Y+link.Max.Y)/2)
	item := func(i int) image.Point { return image.Pt(at.X+60, at.Y+1+4+14+28*i) }
	// Where the menu has no text: its right end, 220 pixels wide.
	blank := func(i int) image.Point { return image.Pt(at.X+205, item(i).Y) }
	d.xdo(t, append(pt(at.X, at.Y), "click", "3")...)
	d.await(t, "the context menu at the pointer", func(img image.Image) bool { return isWhite(img, blank(0)) && isWhite(img, blank(1)) })
	d.clickAt(t, item(0))
	testkit.WaitFor(t, 15*time.Second, "the site serving the link to a new tab", func() bool { return site.reportLoads() == 1 })
	d.xdo(t, append(pt(at.X, at.Y), "click", "3")...)
	d.await(t, "the context menu again", func(img image.Image) bool { return isWhite(img, blank(1)) })
	d.clickAt(t, item(1))
	testkit.WaitFor(t, 15*time.Second, "the link's address on the X clipboard", func() bool { return xClipboard() == site.URL+"/report" })
}

// isWhite says whether the window shows Vroom's white popup at p.
func isWhite(img image.Image, p image.Point) bool {
	r, g, b, _ := img.At(p.X, p.Y).RGBA()
	return r>>8 > 225 && g>>8 > 225 && b>>8 > 225
}

// checkCursors moves the real pointer over the page's link and text: the
// X cursor over the link is the one the window shows over its own buttons
// (a pointing hand), over the text another (a text beam), and over the
// empty page the arrow.
func checkCursors(t *testing.T, d *desktopApp, para, link image.Rectangle) {
	t.Helper()
	moveTo := func(p image.Point) {
		t.Helper()
		d.xdo(t, "mousemove", "--window", d.window, strconv.Itoa(p.X), strconv.Itoa(p.Y))
		d.xdo(t, "mousemove", "--window", d.window, strconv.Itoa(p.X+1), strconv.Itoa(p.Y))
	}
	current := func() xcursor.Image {
		t.Helper()
		img, err := xcursor.Current()
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	// The arrow over the empty page, once the cursor has stayed the same
	// for half a second (the page's answer comes a few events later).
	moveTo(image.Pt(link.Max.X+200, link.Max.Y+150))
	arrow, since := current(), time.Now()
	testkit.WaitFor(t, 10*time.Second, "the cursor settled over the empty page", func() bool {
		if c := current(); c != arrow {
			arrow, since = c, time.Now()
		}
		return time.Since(since) >= 500*time.Millisecond
	})
	// The Settings button, at the window's top right, asks for a pointer.
	moveTo(image.Pt(1220, 24))
	var hand xcursor.Image
	testkit.WaitFor(t, 10*time.Second, "a pointing hand over the window's button", func() bool { hand = current(); return hand != arrow })
	moveTo(image.Pt(link.Min.X+30, (link.Min.Y+link.Max.Y)/2))
	testkit.WaitFor(t, 10*time.Second, "the pointing hand over the page's link", func() bool { return current() == hand })
	moveTo(image.Pt(para.Min.X+60, (para.Min.Y+para.Max.Y)/2))
	testkit.WaitFor(t, 10*time.Second, "a text beam over the page's words", func() bool { c := current(); return c != hand && c != arrow })
}

// TestDesktopInputMethod: text an input method composes in the person's
// view (here Chromium's own IME events, as an IBus would send WebKit
// its) reaches the page's field whole.
func TestDesktopInputMethod(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newNotesSite(t)
	url, _ := startDesk(t, modeltest.New(t))
	ctx := headless(t, url)
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`input[name=omnibox]`), site.URL+"/ime"),
		chromedp.KeyEvent("\r"),
	); err != nil {
		t.Fatal(err)
	}
	const view = `canvas[aria-label="The active tab"]`
	waitJS(t, ctx, "the page in the view", `(() => { const c = document.querySelector('`+view+`'); return !!c && +c.dataset.frames > 0 && document.querySelector('li.tab.active')?.title.endsWith('/ime') })()`, 30*time.Second)
	box := eval[[]float64](t, ctx, `(() => { const r = document.querySelector('`+view+`').getBoundingClientRect(); return [r.left, r.top, r.width, r.height] })()`)
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(box[0]+box[2]/2, box[1]+box[3]*0.3)); err != nil {
		t.Fatal(err)
	}
	const word = "日本語"
	if _, err := chromedp.Call(ctx, input.ImeSetComposition, input.ImeSetCompositionParams{Text: "にほんご", SelectionStart: 4, SelectionEnd: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: word}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 15*time.Second, "the composed word in the page's field", func() bool { return site.fieldNow() == word })
}
