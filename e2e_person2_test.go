package main

import (
	"fmt"
	"image"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/app/config"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// The person's browser as Chrome keeps it between pages (a page zoom set
// on a site is the site's, kept in Settings, for its next tabs) and in a
// cross-site frame (its select and context menu are drawn by Vroom as the
// top page's are).

// configDir is the settings folder the app was started with.
func (d *desktopApp) configDir(t *testing.T) string {
	t.Helper()
	for _, e := range d.cmd.Env {
		if v, ok := strings.CutPrefix(e, "VROOM_CONFIG_DIR="); ok {
			return v
		}
	}
	t.Fatal("the app was started with no VROOM_CONFIG_DIR")
	return ""
}

// zoomed reports whether a page was laid out at zoom z in a window of
// device pixel ratio 1.
func zoomed(z float64) func(navReport) bool {
	return func(r navReport) bool { return r.DPR > z-0.01 && r.DPR < z+0.01 }
}

// Ctrl+plus on a site zooms it to 110 %; a tab of another host opened
// next is at 100 %; the zoomed site's tab closed and the site opened again
// in a new tab is at 110 % again, and the zoom is in the settings file;
// the other host in that same tab is at 100 %.
func TestWindowZoomKept(t *testing.T) {
	d, site, _ := startNav(t)
	// The same server under another host name: another site.
	other := strings.Replace(site.URL, "127.0.0.1", "localhost", 1)
	img := d.await(t, "the start page shown", func(img image.Image) bool { return region(img, navGreen).Dx() > 100 })
	site.laidOutAt(t, "the start page at 100%", "start", zoomed(1))
	d.clickAt(t, centre(region(img, navGreen)).Add(image.Pt(0, 190)))
	d.xdo(t, "key", "ctrl+plus")
	site.laidOutAt(t, "the start page zoomed to 110%", "start", zoomed(1.1))

	d.xdo(t, "key", "ctrl+t")
	d.xdo(t, "sleep", "0.3")
	d.xdo(t, "type", "--delay", "10", other+"/page/second")
	d.xdo(t, "key", "Return")
	site.waitLoads(t, "the other host's page", "second", 1)
	site.laidOutAt(t, "the other host at 100%", "second", zoomed(1))

	// Back to the zoomed site's tab, closed; the site opened again.
	d.xdo(t, "key", "ctrl+shift+Tab")
	d.await(t, "the start page shown again", shows(navBlue))
	d.xdo(t, "key", "ctrl+w")
	d.await(t, "the other host's tab shown", func(img image.Image) bool { return tabRows(img) == 1 && !shows(navBlue)(img) })
	d.xdo(t, "key", "ctrl+t")
	d.xdo(t, "sleep", "0.3")
	d.xdo(t, "type", "--delay", "10", site.URL+"/page/opened")
	d.xdo(t, "key", "Return")
	site.waitLoads(t, "the zoomed site opened again", "opened", 1)
	site.laidOutAt(t, "the zoomed site at 110% in its new tab", "opened", zoomed(1.1))

	// A window of ratio 1: the browser's surfaces are not drawn larger.
	if got := d.surfaceScales(); len(got) != 0 {
		t.Errorf("at ratio 1 the desktop's Chromium draws its surfaces at %v", got)
	}
	st, err := config.Store{Path: filepath.Join(d.configDir(t), "settings.json")}.Load()
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(site.URL, "http://")
	if z := config.ZoomOf(st.Browser.Zoom, host); z != 1.1 {
		t.Errorf("settings keep %s at zoom %g, want 1.1 (all: %+v)", host, z, st.Browser.Zoom)
	}
	if z := config.ZoomOf(st.Browser.Zoom, strings.TrimPrefix(other, "http://")); z != 1 {
		t.Errorf("settings keep the other host at zoom %g, want none", z)
	}

	// The other host in the same tab: laid out at 100 % again.
	d.xdo(t, "key", "ctrl+l")
	d.xdo(t, "type", "--delay", "10", other+"/page/typed")
	d.xdo(t, "key", "Return")
	site.waitLoads(t, "the other host in the zoomed tab", "typed", 1)
	site.laidOutAt(t, "the other host back at 100%", "typed", zoomed(1))
}

// frameSite serves, on 127.0.0.1, a dark page holding at (40, 40) an
// iframe of another site (localhost, the same server: its own process):
// a green select whose changes the frame's page posts to the site with
// its host, and a yellow link to /linked.
type frameSite struct {
	*httptest.Server
	mu     sync.Mutex
	chose  []string
	linked int
}

func newFrameSite(t *testing.T) *frameSite {
	s := &frameSite{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /top", func(w http.ResponseWriter, r *http.Request) {
		inner := strings.Replace(s.URL, "127.0.0.1", "localhost", 1) + "/inner"
		fmt.Fprintf(w, `<!doctype html><title>Framed</title><body style="margin:0;background:#263238">
<iframe src="%s" allow="geolocation" style="position:absolute;left:40px;top:40px;width:600px;height:400px;border:0"></iframe>`, inner)
	})
	mux.HandleFunc("GET /inner", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><body style="margin:0;background:#263238;font:22px sans-serif">
<select id=s style="position:absolute;left:20px;top:20px;width:360px;height:48px;font-size:22px;border:none;background:#00c853;color:#000"><option>one<option>two<option>three<option>four<option>five</select>
<a id=a href="/linked" style="position:absolute;left:20px;top:160px;display:block;width:320px;height:60px;background:#ffeb3b">the frame's link</a>
<button id=g style="position:absolute;left:20px;top:280px;width:320px;height:60px;border:0;background:#ff9800">where am I?</button>
<script>s.onchange=()=>fetch('/chose?v='+s.value,{method:'POST'})
g.onclick=()=>navigator.geolocation.getCurrentPosition(()=>geo(),()=>geo(),{timeout:1000})
const geo=async()=>fetch('/chose?v=geo-'+(await navigator.permissions.query({name:'geolocation'})).state,{method:'POST'})</script>`)
	})
	mux.HandleFunc("POST /chose", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.chose = append(s.chose, r.Host+" "+r.URL.Query().Get("v"))
		s.mu.Unlock()
	})
	mux.HandleFunc("GET /linked", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.linked++
		s.mu.Unlock()
		fmt.Fprint(w, `<!doctype html><title>Linked</title>linked`)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *frameSite) lastChoice() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.chose) == 0 {
		return ""
	}
	return s.chose[len(s.chose)-1]
}

func (s *frameSite) linkLoads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.linked
}

// A select in a cross-site iframe of the person's tab opens Vroom's list
// under it, where it is in the page; the fourth option clicked reaches the
// frame's page. A right-click on the frame's link opens the context menu
// at the pointer, whose "Open link in new tab" loads the link. The frame
// asking for the location raises the permission sheet; allowed, the
// frame's page is granted it.
func TestWindowCrossSiteFrame(t *testing.T) {
	testenv.NeedDisplay(t)
	site := newFrameSite(t)
	d := startWindowApp(t, modeltest.New(t))
	openInView(t, d, site.URL+"/top")
	img := d.await(t, "the frame's select and link shown", func(img image.Image) bool {
		return region(img, formGreen).Dx() > 150 && region(img, navYellow).Dx() > 150
	})
	sel, link := region(img, formGreen), region(img, navYellow)
	d.clickAt(t, image.Pt((sel.Min.X+sel.Max.X)/2, (sel.Min.Y+sel.Max.Y)/2))
	img = d.await(t, "the frame's select list under it", func(img image.Image) bool {
		b := region(img, pickerBlue)
		return b.Dy() >= pickerRow-4 && b.Min.Y >= sel.Max.Y-2 && b.Min.Y <= sel.Max.Y+6 && b.Min.X >= sel.Min.X-8 && b.Dx() >= sel.Dx()-8
	})
	save(t, screenshotDir(t), "desktop-frame-select", img)
	first := region(img, pickerBlue)
	d.clickAt(t, image.Pt(first.Min.X+40, first.Min.Y+3*pickerRow+pickerRow/2))
	testkit.WaitFor(t, 15*time.Second, "the frame's page seeing the fourth option", func() bool { return strings.HasSuffix(site.lastChoice(), " four") })
	if c := site.lastChoice(); !strings.HasPrefix(c, "localhost:") {
		t.Errorf("the choice was reported as %q, not by the localhost frame", c)
	}

	at := image.Pt(link.Min.X+40, (link.Min.Y+link.Max.Y)/2)
	item := image.Pt(at.X+60, at.Y+1+4+14)
	blank := func(i int) image.Point { return image.Pt(at.X+205, at.Y+1+4+14+28*i) }
	d.xdo(t, "mousemove", "--window", d.window, strconv.Itoa(at.X), strconv.Itoa(at.Y), "click", "3")
	d.await(t, "the context menu at the pointer", func(img image.Image) bool { return isWhite(img, blank(0)) && isWhite(img, blank(1)) })
	d.clickAt(t, item)
	testkit.WaitFor(t, 15*time.Second, "the frame's link opened in a new tab", func() bool { return site.linkLoads() == 1 })

	// The new tab opened in the background: the framed page is still shown.
	img = d.await(t, "the frame's location button", func(img image.Image) bool { return region(img, askOrange).Dx() > 150 })
	d.clickAt(t, centre(region(img, askOrange)))
	save(t, screenshotDir(t), "desktop-frame-permission", d.awaitSheet(t))
	// Enter is "Allow while visiting the site".
	d.xdo(t, "key", "Return")
	testkit.WaitFor(t, 15*time.Second, "the frame's page granted the location", func() bool { return strings.HasSuffix(site.lastChoice(), " geo-granted") })
}

// surfaceScales are the --force-device-scale-factor values of the
// processes in the app's session (its Chromium's).
func (d *desktopApp) surfaceScales() []string {
	var out []string
	for _, p := range sessionProcesses(d.cmd.Process.Pid) {
		cmdline, err := os.ReadFile(filepath.Join("/proc", strings.Fields(p)[0], "cmdline"))
		if err != nil {
			continue // the process ended meanwhile
		}
		// Chromium rewrites its command line as one string of words.
		for _, arg := range strings.FieldsFunc(string(cmdline), func(r rune) bool { return r == 0 || r == ' ' }) {
			if v, ok := strings.CutPrefix(arg, "--force-device-scale-factor="); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// On a screen of device pixel ratio 2 (GDK_SCALE=2) the person's tab is
// laid out at ratio 2, and the desktop's Chromium draws its surfaces at
// 2, so the frames carry the view's device pixels (BenchmarkClickToPaint's
// follow-ratio-2); at ratio 1 it draws them at 1, at no cost.
func TestWindowHiDPI(t *testing.T) {
	testenv.NeedDisplay(t)
	t.Setenv("GDK_SCALE", "2")
	site := newNavSite(t)
	d := startWindowApp(t, modeltest.New(t))
	testkit.WaitFor(t, 30*time.Second, "the browser ready", func() bool { return strings.Contains(d.logs.String(), "browser ready") })
	// The window at ratio 2 is larger than the screen: brought onto it,
	// 640x400 CSS pixels. X's pixels are device pixels: the omnibox's
	// left part is at 300, 22 CSS pixels.
	d.xdo(t, "windowmove", d.window, "0", "0")
	d.xdo(t, "windowsize", d.window, "1280", "800")
	d.typeIn(t, image.Pt(600, 44), site.URL+"/page/start")
	d.xdo(t, "key", "Return")
	site.waitLoads(t, "the start page", "start", 1)
	site.laidOutAt(t, "the start page laid out at ratio 2", "start", zoomed(2))
	if got := d.surfaceScales(); len(got) == 0 || got[0] != "2" {
		t.Errorf("the desktop's Chromium draws its surfaces at %v, want 2", got)
	}
}
