package main

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/agents"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// The real desktop binary under Xvfb, driven with real X input (xdotool):
// a sidebar tab dragged onto the omnibox, and a take-over of a full-height
// web app whose message box sits at the bottom of its viewport. Nothing
// here reads the window's DOM: the test finds what it clicks by the
// fixture's colours in screenshots, as a person finds it by eye.

// chatSite is a full-height chat app (100vh: a green top bar, a message
// list that scrolls, a yellow message box and a magenta strip at the
// viewport's bottom edge) that records the messages posted and how far the
// list was scrolled.
type chatSite struct {
	*httptest.Server
	mu       sync.Mutex
	messages []string
	scrolled int
}

const chatPage = `<!doctype html><title>Team chat</title>
<style>
html,body{margin:0;height:100%%}
body{display:flex;flex-direction:column;height:100vh;font:18px sans-serif}
header{flex:none;height:56px;background:#00c853;color:#fff;font-size:24px;padding:12px}
#log{flex:1;overflow:auto;background:#fff;padding:0 12px}
form{flex:none;display:flex;gap:8px;padding:10px;background:#ddd}
#msg{flex:1;height:56px;font-size:24px;background:#ffeb3b;border:none}
#edge{flex:none;height:14px;background:#e000ff}
</style>
<header>Team chat</header>
<div id=log>%s</div>
<form id=f><input id=msg aria-label="Message" placeholder="Message" autocomplete=off><button>Send</button></form>
<div id=edge></div>
<script>
f.onsubmit=async e=>{e.preventDefault();const t=msg.value;msg.value='';await fetch('/api/message',{method:'POST',body:t});const p=document.createElement('p');p.textContent='you: '+t;log.append(p)};
let timer=0;log.onscroll=()=>{clearTimeout(timer);timer=setTimeout(()=>fetch('/api/scroll?top='+Math.round(log.scrollTop),{method:'POST'}),50)};
</script>`

func newChatSite(t *testing.T) *chatSite {
	s := &chatSite{}
	var lines strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&lines, "<p>colleague: message %d of the morning</p>", i)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /chat", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, chatPage, lines.String())
	})
	mux.HandleFunc("POST /api/message", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.messages = append(s.messages, string(b))
		s.mu.Unlock()
	})
	mux.HandleFunc("POST /api/scroll", func(w http.ResponseWriter, r *http.Request) {
		top, _ := strconv.Atoi(r.URL.Query().Get("top"))
		s.mu.Lock()
		s.scrolled = max(s.scrolled, top)
		s.mu.Unlock()
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *chatSite) posted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.messages...)
}

func (s *chatSite) scrollTop() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scrolled
}

// The fixture's colours, as they come through a JPEG frame.
var (
	chatGreen   = colourNear(0x00, 0xc8, 0x53)
	chatYellow  = colourNear(0xff, 0xeb, 0x3b)
	chatMagenta = colourNear(0xe0, 0x00, 0xff)
)

// colourNear matches a pixel within a JPEG's error of r, g, b.
func colourNear(r, g, b int) func(r, g, b int) bool {
	return func(pr, pg, pb int) bool {
		d := func(a, b int) int { return max(a-b, b-a) }
		return d(pr, r) < 40 && d(pg, g) < 40 && d(pb, b) < 40
	}
}

// capture is the window's picture now (nil if it could not be taken).
func (d *desktopApp) capture() image.Image {
	out, err := exec.Command("import", "-window", d.window, "png:-").Output()
	if err != nil {
		return nil
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		return nil
	}
	return img
}

// region is the bounding box of the pixels of img that match, counting
// only rows with at least 20 of them (text antialiasing is not a region).
func region(img image.Image, match func(r, g, b int) bool) image.Rectangle {
	var box image.Rectangle
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		n, lo, hi := 0, b.Max.X, b.Min.X
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if match(int(r>>8), int(g>>8), int(bl>>8)) {
				n++
				lo, hi = min(lo, x), max(hi, x+1)
			}
		}
		if n >= 20 {
			box = box.Union(image.Rect(lo, y, hi, y+1))
		}
	}
	return box
}

// await waits until the window shows what ok accepts and returns that
// picture.
func (d *desktopApp) await(t *testing.T, what string, ok func(image.Image) bool) image.Image {
	t.Helper()
	var img image.Image
	testkit.WaitFor(t, 30*time.Second, what, func() bool {
		img = d.capture()
		return img != nil && ok(img)
	})
	return img
}

// awaitRedrawn waits until the window's picture inside r differs from
// before's in at least a tenth of its pixels, and returns that picture.
func (d *desktopApp) awaitRedrawn(t *testing.T, what string, before image.Image, r image.Rectangle) image.Image {
	t.Helper()
	return d.await(t, what, func(img image.Image) bool {
		changed := 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if img.At(x, y) != before.At(x, y) {
					changed++
				}
			}
		}
		return changed*10 >= r.Dx()*r.Dy()
	})
}

// clickAt clicks the window at p.
func (d *desktopApp) clickAt(t *testing.T, p image.Point) {
	t.Helper()
	d.xdo(t, "mousemove", "--window", d.window, strconv.Itoa(p.X), strconv.Itoa(p.Y), "click", "1")
}

// startWindowApp starts the desktop app (startDesktopApp) and, if the test
// fails, keeps the window's last picture beside the screenshots and says
// in the log what it showed: what the window showed tells a flake from a
// bug.
func startWindowApp(t *testing.T, srv *modeltest.Server) *desktopApp {
	t.Helper()
	d := startDesktopApp(t, srv)
	t.Cleanup(func() {
		if img := d.capture(); t.Failed() && img != nil {
			save(t, screenshotDir(t), "failed-"+t.Name(), img)
			t.Logf("the window showed at the end: %s", describe(img))
		}
	})
	return d
}

// typeIn clicks the address box at p and types text there, then reads
// the box back (select all, copy, the X clipboard) as a person glances at
// what they typed, and types it again if a key was lost: WebKit can drop
// a key pressed in the instant a click moves the focus, and under load
// that instant outlasts any pause. The pause stays: it makes a retyping
// rare.
func (d *desktopApp) typeIn(t *testing.T, p image.Point, text string) {
	t.Helper()
	for try := 1; ; try++ {
		d.clickAt(t, p)
		// Separate commands: chained after a --window command, xdotool
		// sends the keys to that window as synthetic events, which WebKit
		// ignores.
		d.xdo(t, "sleep", "0.3")
		d.xdo(t, "key", "ctrl+a")
		d.xdo(t, "type", "--delay", "10", text)
		d.xdo(t, "key", "ctrl+a", "ctrl+c", "End")
		got := ""
		held := testkit.Within(5*time.Second, func() bool { got = xClipboard(); return got == text })
		if held {
			return
		}
		if try == 3 {
			t.Fatalf("the address box holds %q after three tries, not %q", got, text)
		}
		t.Logf("the address box held %q, not %q: typing it again", got, text)
	}
}

// save writes img to dir/name.png.
func save(t *testing.T, dir, name string, img image.Image) {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/"+name+".png", buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// screenshotDir is VROOM_SCREENSHOT_DIR when set (the README's pictures),
// else a temporary directory.
func screenshotDir(t *testing.T) string {
	if dir := os.Getenv("VROOM_SCREENSHOT_DIR"); dir != "" {
		return dir
	}
	return t.TempDir()
}

// A sidebar tab dragged onto the omnibox with the real mouse becomes a
// chip: the task typed next runs with that tab, which the planner's first
// request names by its title.
func TestWindowDragTabToOmnibox(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newChatSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		return modeltest.Call("done", map[string]any{"summary": "nothing to do", "success": true})
	}})
	d := startWindowApp(t, srv)
	testkit.WaitFor(t, 30*time.Second, "the browser ready", func() bool { return strings.Contains(d.logs.String(), "browser ready") })
	// The first tab goes to the chat, shown large as the active tab.
	d.typeIn(t, image.Pt(640, 22), site.URL+"/chat")
	d.xdo(t, "key", "Return")
	d.await(t, "the chat shown in the main view", func(img image.Image) bool { return region(img, chatGreen).Dx() > 300 })

	// Drag the sidebar's first tab onto the omnibox, moving as a hand
	// does: GTK starts a drag past its threshold and needs motion over the
	// target before the drop.
	d.xdo(t, "mousemove", "--window", d.window, "90", "100", "mousedown", "1",
		"mousemove", "--window", d.window, "100", "96", "sleep", "0.1",
		"mousemove", "--window", d.window, "200", "70", "sleep", "0.1",
		"mousemove", "--window", d.window, "400", "40", "sleep", "0.1",
		"mousemove", "--window", d.window, "600", "24", "sleep", "0.1",
		"mousemove", "--window", d.window, "640", "22", "sleep", "0.2", "mouseup", "1")
	// GTK ends its drag on the motion after the release; a click before
	// that is swallowed by the drag.
	d.xdo(t, "mousemove", "--window", d.window, "700", "30", "sleep", "0.2", "mousemove", "--window", d.window, "710", "22", "sleep", "0.3")
	d.typeIn(t, image.Pt(700, 22), "summarise this chat")
	d.xdo(t, "key", "Return")
	testkit.WaitFor(t, 30*time.Second, "the planner's first request", func() bool { return len(srv.Requests("planner")) > 0 })
	if text := srv.Requests("planner")[0].Text(); !strings.Contains(text, `title "Team chat"`) {
		t.Fatalf("the planner's first request does not carry the dragged tab:\n%s", tailOf(text, 1500))
	}
}

// darkIn counts the dark pixels (text) inside r of img.
func darkIn(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr>>8 < 90 && cg>>8 < 90 && cb>>8 < 90 {
				n++
			}
		}
	}
	return n
}

// chatExecutor reads the chat slowly until its tool result carries the
// person's hand-back note, then finishes.
func chatExecutor(note string) modeltest.Step {
	return modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if strings.Contains(r.LastText(), "<user_correction>\n"+note) {
			return modeltest.Call("done", map[string]any{"summary": "the person posted it", "success": true})
		}
		return modeltest.Slow(300*time.Millisecond, modeltest.Call("read_page", map[string]any{}))
	}}
}

// TestWindowTakeOverFullHeight is the take-over in the real window: one
// agent fills its tile; taken over, the tab's viewport takes the view's
// shape so the whole full-height app shows, its bottom message box and
// bottom edge included; the person types into that box and scrolls the list
// with the wheel, and hands back with a note that the agent's next model
// request carries, with word that the page may have re-laid out.
func TestWindowTakeOverFullHeight(t *testing.T) {
	testenv.NeedDisplay(t)
	dir := screenshotDir(t)
	site := newChatSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "say hello in the team chat", "url": site.URL + "/chat"}))
	const typed, note = "hello from the person", "I said hello myself; you are done"
	srv.Script("executor", chatExecutor(note))
	d := startWindowApp(t, srv)
	testkit.WaitFor(t, 30*time.Second, "the browser ready", func() bool { return strings.Contains(d.logs.String(), "browser ready") })
	d.typeIn(t, image.Pt(640, 22), "say hello in the team chat")
	d.xdo(t, "key", "Return")
	testkit.WaitFor(t, 60*time.Second, "the agent reading the chat", func() bool { return len(srv.Requests("executor")) >= 2 })
	img := d.await(t, "one agent filling its tile", func(img image.Image) bool {
		return region(img, chatGreen).Dx() > 650 && region(img, chatMagenta).Dx() > 650
	})
	save(t, dir, "desktop-one-agent", img)

	// "Take over" sits in the tile's header, at its right end; the tile is
	// as wide as its frame.
	frame := region(img, chatGreen)
	d.clickAt(t, image.Pt(frame.Max.X-75, frame.Min.Y-15))
	testkit.WaitFor(t, 30*time.Second, "the take-over logged", func() bool { return len(runLogsMatching(t, d.dataDir, agents.LogTakeOver)) > 0 })
	atTakeOver := len(srv.Requests("executor"))
	img = d.await(t, "the taken-over tab fitted to the whole view", func(img image.Image) bool {
		g, y, m := region(img, chatGreen), region(img, chatYellow), region(img, chatMagenta)
		return g.Dx() > 950 && m.Dx() > 950 && y.Dy() > 30 && m.Min.Y >= y.Max.Y && m.Max.Y < img.Bounds().Max.Y-40
	})
	typeIntoBottomBox(t, d, site, dir, typed, img)
	scrollChat(t, d, site, region(img, chatGreen), region(img, chatYellow))
	// A model call in flight when the person took over may still be
	// recorded (its action is then skipped); none starts after.
	calls := len(srv.Requests("executor"))
	if calls > atTakeOver+1 {
		t.Errorf("the agent called the model %d times after the take-over", calls-atTakeOver)
	}

	// The hand-back form sits right under the view: its note field spans
	// the tile's middle.
	m := region(img, chatMagenta)
	d.clickAt(t, image.Pt((m.Min.X+m.Max.X)/2, m.Max.Y+18))
	d.xdo(t, "type", "--delay", "10", note)
	d.xdo(t, "key", "Return")
	testkit.WaitFor(t, 30*time.Second, "the hand-back logged", func() bool { return len(runLogsMatching(t, d.dataDir, agents.LogHandBack)) > 0 })
	// Any request since is the agent resumed: it carries the note.
	for _, r := range srv.Requests("executor")[calls:] {
		if !strings.Contains(r.LastText(), "<user_correction>\n"+note) {
			t.Errorf("the agent called the model while the person had its tab:\n%s", tailOf(r.LastText(), 600))
		}
	}
	var last string
	testkit.WaitFor(t, 30*time.Second, "the agent's next request carrying the note", func() bool {
		for _, r := range srv.Requests("executor") {
			if strings.Contains(r.LastText(), "<user_correction>\n"+note) {
				last = r.LastText()
				return true
			}
		}
		return false
	})
	if !strings.Contains(last, "re-laid out") {
		t.Errorf("the hand-back result does not say the page may have re-laid out:\n%s", tailOf(last, 1500))
	}
}

// typeIntoBottomBox clicks the chat's bottom message box in the live view
// and types into it with X key events; the typed text shows in the frame
// (the screenshot of the take-over), and Return posts it to the site.
func typeIntoBottomBox(t *testing.T, d *desktopApp, site *chatSite, dir, typed string, img image.Image) {
	t.Helper()
	box := region(img, chatYellow)
	d.clickAt(t, image.Pt(box.Min.X+box.Dx()/3, (box.Min.Y+box.Max.Y)/2))
	d.xdo(t, "type", "--delay", "40", typed)
	// The frame is complete once the text in the box stops changing.
	prev := -1
	shot := d.await(t, "the typed text in the bottom box", func(img image.Image) bool {
		y := region(img, chatYellow)
		n := darkIn(img, y)
		still := n == prev
		prev = n
		return still && y.Dy() > 30 && n > 150 && region(img, chatMagenta).Dx() > 950
	})
	save(t, dir, "desktop-takeover", shot)
	d.xdo(t, "key", "Return")
	testkit.WaitFor(t, 30*time.Second, "the site recording the message", func() bool {
		got := site.posted()
		return len(got) > 0 && got[len(got)-1] == typed
	})
	if got := site.posted(); len(got) != 1 {
		t.Errorf("the site recorded %q, want one message %q", got, typed)
	}
}

// scrollChat turns the mouse wheel over the chat's message list in the
// live view: the list scrolls in the page.
func scrollChat(t *testing.T, d *desktopApp, site *chatSite, top, bottom image.Rectangle) {
	t.Helper()
	x, y := (top.Min.X+top.Max.X)/2, (top.Max.Y+bottom.Min.Y)/2
	d.xdo(t, "mousemove", "--window", d.window, strconv.Itoa(x), strconv.Itoa(y), "click", "--repeat", "3", "--delay", "50", "5")
	testkit.WaitFor(t, 15*time.Second, "the wheel scrolling the chat's list", func() bool { return site.scrollTop() > 0 })
}
