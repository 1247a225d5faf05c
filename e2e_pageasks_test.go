package main

import (
	"encoding/binary"
	"fmt"
	"image"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// What a page asks of the browser, answered by the person in the real
// window (WebKitGTK under Xvfb, xdotool as the hands): each stage is judged
// by what the page sent the fixture site, or by the file on disk, never by
// the UI's words.

// askSite is a fixture site whose pages ask for things — dialogs, a
// password, a file, a download, sound — and record what they got.
type askSite struct {
	*httptest.Server
	mu  sync.Mutex
	got []string
}

// askPage is one orange button filling the viewport; each click does
// what its script says next.
const askPage = `<!doctype html><title>%s</title>
<style>html,body{margin:0;height:100%%}button{display:block;width:100vw;height:100vh;border:none;background:#ff9800;color:#000;font:40px sans-serif}</style>
<button id=b>%s</button>
<script>
const report = (k, v) => fetch('/got?' + k + '=' + encodeURIComponent(v), {method: 'POST'});
%s
</script>`

// askScripts are the pages' scripts, by page.
var askScripts = map[string]string{
	// Three clicks: an alert, a confirm, a prompt; each answer reported.
	"dialogs": `let n = 0;
b.onclick = () => {
  n++;
  if (n === 1) { alert('Hello from the page'); report('alert', 'closed'); }
  else if (n === 2) { report('confirm', confirm('Delete the draft?')); }
  else { const v = prompt('Your name?', ''); report('prompt', v === null ? 'null' : v); }
};`,
	// A file input behind the button; the chosen file's bytes are posted.
	"upload": `const f = document.createElement('input'); f.type = 'file'; f.style.display = 'none'; document.body.append(f);
b.onclick = () => f.click();
f.onchange = async () => { const t = await f.files[0].text(); report('upload', f.files[0].name + ':' + t); };`,
	// A download link.
	"download": `b.onclick = () => { const a = document.createElement('a'); a.href = '/file'; a.download = 'pageasks-report.txt'; document.body.append(a); a.click(); };`,
	// Three seconds of a 440 Hz tone.
	"sound": `b.onclick = () => { const c = new AudioContext(); const o = c.createOscillator(); const g = c.createGain(); g.gain.value = 0.5; o.frequency.value = 440; o.connect(g).connect(c.destination); o.start(); o.stop(c.currentTime + 3); report('sound', c.state); };`,
	// A confirm once the site says so, asked by polling: the test opens
	// it when this tab is in the background.
	"later": `(async function poll() { const r = await fetch('/later'); if (await r.text() === 'now') { report('later', confirm('Still there?')); return; } setTimeout(poll, 200); })();
b.onclick = () => report('later-click', 'yes');`,
	// Each click asks to show notifications and reports the answer.
	"notify": `let n = 0; b.onclick = async () => { n++; report('notify' + n, await Notification.requestPermission()); };`,
	// A page that asks before it is left, once clicked (Chromium asks only
	// on a page the person used).
	"leave": `addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; }); b.onclick = () => report('leave', 'armed');`,
	// A button that reports each click.
	"clicks": `let n = 0; b.onclick = () => report('click', ++n);`,
}

// downloadBody is what /file serves.
const downloadBody = "quarterly figures: 42\n"

func newAskSite(t *testing.T) *askSite {
	s := &askSite{}
	var later sync.Once
	laterNow := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ask/{page}", func(w http.ResponseWriter, r *http.Request) {
		p := r.PathValue("page")
		s.mu.Lock()
		s.got = append(s.got, "page="+p)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, askPage, "Ask "+p, p, askScripts[p])
	})
	mux.HandleFunc("POST /got", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		for k, v := range r.URL.Query() {
			s.got = append(s.got, k+"="+v[0])
		}
	})
	mux.HandleFunc("GET /later", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-laterNow:
			io.WriteString(w, "now")
		default:
			io.WriteString(w, "wait")
		}
	})
	mux.HandleFunc("POST /later", func(w http.ResponseWriter, r *http.Request) { later.Do(func() { close(laterNow) }) })
	mux.HandleFunc("GET /file", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, downloadBody)
	})
	mux.HandleFunc("GET /private", func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if !ok || u != "ada" || p != "lovelace" {
			w.Header().Set("WWW-Authenticate", `Basic realm="Members"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		s.mu.Lock()
		s.got = append(s.got, "auth="+u)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, askPage, "Members", "members", "")
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// has reports whether the site got k=v.
func (s *askSite) has(kv string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.got {
		if g == kv {
			return true
		}
	}
	return false
}

func (s *askSite) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// awaitGot waits until the site got kv.
func (s *askSite) awaitGot(t *testing.T, kv string) {
	t.Helper()
	testkit.WaitFor(t, 30*time.Second, "the site receiving "+kv, func() bool { return s.has(kv) })
}

// The page's colours, as they come through a JPEG frame, and the sheet's
// OK button.
var (
	askOrange = colourNear(0xff, 0x98, 0x00)
	sheetBlue = colourNear(0x1a, 0x73, 0xe8)
)

// openInActiveTab types url into the omnibox and waits for the page's
// orange button to fill the view.
func (d *desktopApp) openInActiveTab(t *testing.T, url string) image.Rectangle {
	t.Helper()
	// Every page is orange: the view goes blank first, so the orange
	// waited for is the new page's.
	d.typeIn(t, image.Pt(640, 22), "about:blank")
	d.xdo(t, "key", "Return")
	d.await(t, "the tab blank", func(img image.Image) bool { return region(img, askOrange).Dx() < 100 })
	// On a busy machine WebKit may drop a key typed into the omnibox, and
	// a mistyped address loads nothing: typed again, as a person would.
	for try := 1; ; try++ {
		d.typeIn(t, image.Pt(640, 22), url)
		d.xdo(t, "key", "Return")
		if img := d.within(10*time.Second, func(img image.Image) bool { return region(img, askOrange).Dx() > 500 }); img != nil {
			return region(img, askOrange)
		}
		if try == 3 {
			t.Fatalf("%s did not show after typing it %d times", url, try)
		}
		d.xdo(t, "key", "ctrl+a", "BackSpace")
	}
}

// within is the window's first picture ok accepts within d, or nil.
func (d *desktopApp) within(wait time.Duration, ok func(image.Image) bool) image.Image {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); <-tick.C {
		if img := d.capture(); img != nil && ok(img) {
			return img
		}
	}
	return nil
}

// clickPage clicks the middle of the page's button and waits for the
// sheet Vroom draws over the view.
func (d *desktopApp) clickForSheet(t *testing.T, page image.Rectangle) image.Image {
	t.Helper()
	d.clickAt(t, image.Pt((page.Min.X+page.Max.X)/2, page.Max.Y-40))
	return d.awaitSheet(t)
}

// awaitSheet waits for the sheet's blue OK button.
func (d *desktopApp) awaitSheet(t *testing.T) image.Image {
	t.Helper()
	return d.await(t, "the page's ask drawn over the view", func(img image.Image) bool {
		r := region(img, sheetBlue)
		return r.Dx() > 30 && r.Dy() > 15
	})
}

// awaitNoSheet waits until no sheet shows.
func (d *desktopApp) awaitNoSheet(t *testing.T) {
	t.Helper()
	d.await(t, "the sheet gone", func(img image.Image) bool { return region(img, sheetBlue).Dx() < 30 })
}

// The person's tab: an alert closed with Enter, a confirm cancelled with
// Escape, a prompt answered by typing, "Leave site?" accepted; a site's
// password given in the sign-in sheet; notifications allowed and
// remembered; a file chosen in GTK's file dialog reaching the site; a
// download landing in ~/Downloads with the tray open.
func TestWindowPageAsks(t *testing.T) {
	testenv.NeedDisplay(t)
	dir := screenshotDir(t)
	site := newAskSite(t)
	srv := modeltest.New(t)
	d := startWindowApp(t, srv)
	testkit.WaitFor(t, 30*time.Second, "the browser ready", func() bool { return strings.Contains(d.logs.String(), "browser ready") })

	t.Run("dialogs", func(t *testing.T) { answerDialogs(t, d, site, dir) })
	t.Run("leave site", func(t *testing.T) { leaveSite(t, d, site) })
	t.Run("basic auth", func(t *testing.T) { signIn(t, d, site, dir) })
	t.Run("permission", func(t *testing.T) { allowPermission(t, d, site, dir) })
	t.Run("file chooser", func(t *testing.T) { chooseFile(t, d, site, dir) })
	t.Run("download", func(t *testing.T) { downloadFile(t, d, site, dir) })
	if t.Failed() {
		t.Logf("the site received %q", site.received())
	}
}

// answerDialogs closes an alert with Enter, cancels a confirm with Escape and
// types into a prompt.
func answerDialogs(t *testing.T, d *desktopApp, site *askSite, dir string) {
	page := d.openInActiveTab(t, site.URL+"/ask/dialogs")
	save(t, dir, "desktop-dialog", d.clickForSheet(t, page))
	d.xdo(t, "key", "Return")
	site.awaitGot(t, "alert=closed")
	d.awaitNoSheet(t)

	d.clickForSheet(t, page)
	d.xdo(t, "key", "Escape")
	site.awaitGot(t, "confirm=false")
	d.awaitNoSheet(t)

	d.clickForSheet(t, page)
	d.xdo(t, "type", "--delay", "30", "Ada Lovelace")
	d.xdo(t, "key", "Return")
	site.awaitGot(t, "prompt=Ada Lovelace")
}

// leaveSite leaves a page that asks before it is left: "Leave site?" is
// drawn, and Enter leaves.
func leaveSite(t *testing.T, d *desktopApp, site *askSite) {
	page := d.openInActiveTab(t, site.URL+"/ask/leave")
	d.clickAt(t, image.Pt((page.Min.X+page.Max.X)/2, page.Max.Y-40))
	site.awaitGot(t, "leave=armed")
	d.typeIn(t, image.Pt(640, 22), site.URL+"/ask/clicks")
	d.xdo(t, "key", "Return")
	d.awaitSheet(t)
	if site.has("page=clicks") {
		t.Fatal("the page was left before the person answered")
	}
	d.xdo(t, "key", "Return")
	site.awaitGot(t, "page=clicks")
}

// signIn gives a site's password in the sign-in sheet.
func signIn(t *testing.T, d *desktopApp, site *askSite, dir string) {
	d.typeIn(t, image.Pt(640, 22), site.URL+"/private")
	d.xdo(t, "key", "Return")
	d.awaitSheet(t)
	// The user name field has the focus; Tab goes to the password.
	d.xdo(t, "type", "--delay", "30", "ada")
	d.xdo(t, "key", "Tab")
	d.xdo(t, "type", "--delay", "30", "lovelace")
	d.xdo(t, "key", "Return")
	site.awaitGot(t, "auth=ada")
	d.await(t, "the members' page shown", func(img image.Image) bool { return region(img, askOrange).Dx() > 500 })
}

// allowPermission allows notifications while visiting the site: the
// second request is not asked.
func allowPermission(t *testing.T, d *desktopApp, site *askSite, dir string) {
	page := d.openInActiveTab(t, site.URL+"/ask/notify")
	save(t, dir, "desktop-permission", d.clickForSheet(t, page))
	// Enter is "Allow while visiting the site".
	d.xdo(t, "key", "Return")
	site.awaitGot(t, "notify1=granted")
	d.awaitNoSheet(t)
	// Remembered: the second request is answered without asking (a
	// sheet would hold it until a key was pressed).
	d.clickAt(t, image.Pt((page.Min.X+page.Max.X)/2, page.Max.Y-40))
	site.awaitGot(t, "notify2=granted")
}

// chooseFile picks a file in GTK's file dialog: its bytes reach the site.
func chooseFile(t *testing.T, d *desktopApp, site *askSite, dir string) {
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("my own notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	page := d.openInActiveTab(t, site.URL+"/ask/upload")
	d.clickAt(t, image.Pt((page.Min.X+page.Max.X)/2, page.Max.Y-40))
	var win string
	testkit.WaitFor(t, 30*time.Second, "GTK's file dialog", func() bool {
		out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^Choose a file").Output()
		win = strings.TrimSpace(strings.Split(string(out), "\n")[0])
		return win != ""
	})
	// As a person does: Ctrl+L for a location, the path, Enter.
	d.xdo(t, "windowfocus", "--sync", win)
	d.xdo(t, "key", "ctrl+l")
	d.xdo(t, "sleep", "0.5")
	d.xdo(t, "type", "--delay", "20", file)
	// GTK completes the path as it is typed: Enter once it settled.
	d.xdo(t, "sleep", "1")
	d.xdo(t, "key", "Return")
	site.awaitGot(t, "upload=notes.txt:my own notes")
	// The focus back on Vroom's window, as a window manager gives it back
	// when a dialog closes (Xvfb has none).
	d.xdo(t, "windowfocus", "--sync", d.window)
}

// downloadFile downloads into ~/Downloads, with the tray open.
func downloadFile(t *testing.T, d *desktopApp, site *askSite, dir string) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, "Downloads", "pageasks-report.txt")
	os.Remove(path) // a file from an earlier run would be renamed around
	page := d.openInActiveTab(t, site.URL+"/ask/download")
	d.clickAt(t, image.Pt((page.Min.X+page.Max.X)/2, page.Max.Y-40))
	testkit.WaitFor(t, 30*time.Second, "the download in ~/Downloads", func() bool {
		b, err := os.ReadFile(path)
		return err == nil && string(b) == downloadBody
	})
	// The tray opened by itself: its panel covers the page's top right.
	img := d.await(t, "the downloads tray open", func(img image.Image) bool {
		o := region(img, askOrange)
		return o.Dx() > 500 && img.At(o.Max.X-100, o.Min.Y+40) != img.At(o.Min.X+100, o.Min.Y+40)
	})
	save(t, dir, "desktop-downloads", img)
}

// Sound from a page in the person's tab reaches the speaker: the
// PulseAudio sink's monitor carries non-silent samples while it plays.
func TestWindowPersonSound(t *testing.T) {
	testenv.NeedDisplay(t)
	parec, err := exec.LookPath("parec")
	if err != nil {
		testenv.Missing(t, "parec (apt-get install pulseaudio-utils)")
	}
	site := newAskSite(t)
	d := startWindowApp(t, modeltest.New(t))
	testkit.WaitFor(t, 30*time.Second, "the browser ready", func() bool { return strings.Contains(d.logs.String(), "browser ready") })
	page := d.openInActiveTab(t, site.URL+"/ask/sound")

	rec := exec.Command(parec, "-d", "vroom_speaker.monitor", "--raw", "--format=s16le", "--channels=1", "--rate=16000", "--latency-msec=20")
	out, err := rec.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rec.Process.Kill()
		rec.Wait()
	})
	loud := make(chan int, 1)
	go func() {
		var s int16
		for n := 0; ; n++ {
			if binary.Read(out, binary.LittleEndian, &s) != nil {
				return
			}
			if s > 2000 || s < -2000 {
				loud <- n
				return
			}
		}
	}()
	d.clickAt(t, image.Pt((page.Min.X+page.Max.X)/2, page.Max.Y-40))
	site.awaitGot(t, "sound=running")
	select {
	case <-loud:
	case <-time.After(20 * time.Second):
		t.Fatalf("no sound reached the speaker's sink within 20 s of the page playing (the site got %q)", site.received())
	}
}

// warnMark is the sidebar's mark on a tab whose page waits for an answer.
var warnMark = colourNear(0xf0, 0xb3, 0x5a)

// firstTabRow is where the sidebar's first tab is in the window.
var firstTabRow = image.Rect(0, 80, 220, 120)

// marksIn counts the pixels of the sidebar's ask mark inside r.
func marksIn(img image.Image, r image.Rectangle) int {
	n := 0
	b := img.Bounds().Intersect(r)
	for py := b.Min.Y; py < b.Max.Y; py++ {
		for px := b.Min.X; px < b.Max.X; px++ {
			r, g, bl, _ := img.At(px, py).RGBA()
			if warnMark(int(r>>8), int(g>>8), int(bl>>8)) {
				n++
			}
		}
	}
	return n
}

// A confirm left unanswered on a tab the person is not looking at marks
// that tab in the sidebar and freezes nothing else: the person goes on
// clicking in another tab, and a run started meanwhile works to its end;
// the confirm still waits, and is answered once the person goes back.
func TestWindowBackgroundDialog(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newAskSite(t)
	desk := newDeskSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "read the North desk", "url": desk.URL + "/desk/North"}))
	var reads atomic.Int32
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if reads.Add(1) > 3 {
			return modeltest.Call("done", map[string]any{"summary": "read the desk three times", "success": true})
		}
		return modeltest.Call("read_page", map[string]any{})
	}})
	d := startWindowApp(t, srv)
	testkit.WaitFor(t, 30*time.Second, "the browser ready", func() bool { return strings.Contains(d.logs.String(), "browser ready") })
	d.openInActiveTab(t, site.URL+"/ask/later")
	// The sidebar's "+" opens a blank tab, which becomes the active one.
	d.clickAt(t, image.Pt(198, 68))
	d.await(t, "the new blank tab active", func(img image.Image) bool { return region(img, askOrange).Dx() < 100 })
	page := d.openInActiveTab(t, site.URL+"/ask/clicks")

	// The first tab's page opens its confirm, in the background.
	if _, err := http.Post(site.URL+"/later", "text/plain", nil); err != nil {
		t.Fatal(err)
	}
	d.await(t, "the first tab marked in the sidebar", func(img image.Image) bool { return marksIn(img, firstTabRow) > 60 })
	// The person goes on in the tab they look at.
	for i := 1; i <= 2; i++ {
		d.clickAt(t, image.Pt((page.Min.X+page.Max.X)/2, page.Max.Y-40))
		site.awaitGot(t, fmt.Sprintf("click=%d", i))
	}
	// A run works to its end meanwhile.
	d.typeIn(t, image.Pt(640, 22), "read the North desk")
	d.xdo(t, "key", "Return")
	testkit.WaitFor(t, 90*time.Second, "the agent done", func() bool {
		for _, r := range srv.Requests("planner") {
			if strings.Contains(r.Text(), "read the desk three times") {
				return true
			}
		}
		return false
	})
	if n := len(srv.Requests("executor")); n < 4 {
		t.Errorf("the agent called its model %d times, want 4 (three reads, then done)", n)
	}
	if got := site.received(); strings.Contains(strings.Join(got, " "), "later=") {
		t.Fatalf("the background confirm was answered without the person: %q", got)
	}
	if img := d.capture(); img == nil || marksIn(img, firstTabRow) < 60 {
		t.Errorf("the first tab's mark went while its confirm still waits")
	}
	// Back to browsing, the person picks the marked tab: its confirm shows
	// over it, and Escape answers it.
	d.clickAt(t, image.Pt(1190, 80))
	d.clickAt(t, image.Pt(90, 100))
	d.awaitSheet(t)
	d.xdo(t, "key", "Escape")
	site.awaitGot(t, "later=false")
	d.await(t, "the mark gone", func(img image.Image) bool { return marksIn(img, firstTabRow) < 10 })
}

// SIGTERM while GTK's file dialog is open ends the app as it does without
// one (GTK's dialog loop does not take the window's quit). The app is not
// startWindowApp's: its window is gone before the cleanup would picture it.
func TestWindowQuitInFileDialog(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newAskSite(t)
	d := startDesktopApp(t, modeltest.New(t))
	testkit.WaitFor(t, 30*time.Second, "the browser ready", func() bool { return strings.Contains(d.logs.String(), "browser ready") })
	page := d.openInActiveTab(t, site.URL+"/ask/upload")
	d.clickAt(t, image.Pt((page.Min.X+page.Max.X)/2, page.Max.Y-40))
	testkit.WaitFor(t, 30*time.Second, "GTK's file dialog", func() bool {
		out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^Choose a file").Output()
		return strings.TrimSpace(string(out)) != ""
	})
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- d.cmd.Wait() }()
	select {
	case err := <-exited:
		t.Logf("exit: %v", err)
	case <-time.After(15 * time.Second):
		// Killed, so the cleanup finds the app gone.
		d.cmd.Process.Kill()
		<-exited
		t.Fatal("the app did not exit within 15 s of SIGTERM with a file dialog open")
	}
}
