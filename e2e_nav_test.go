package main

import (
	"fmt"
	"image"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// The person browsing in the real window as in Chrome: links opened in
// new tabs, window.open, the toolbar, the shortcuts, find, zoom, and a tab
// laid out at the size it is shown at. Each step is judged by what the
// pages reported to the test site: which pages loaded, and the viewport
// each was laid out at.

// navSite serves coloured pages that report to it when they are shown,
// resized, and how many find highlights they hold.
type navSite struct {
	*httptest.Server
	mu      sync.Mutex
	loads   map[string]int // page (with its query) → documents served
	reports []navReport
}

// navReport is one page's word: what happened and its viewport then.
type navReport struct {
	Page, What string
	W, H       int
	DPR        float64
}

// navPage is a page of the site: a full-bleed colour, a yellow link, a
// magenta window.open button, a green link to the next page, and words to
// find. It is never cached, so going back loads it again.
const navPage = `<!doctype html><title>%[1]s page</title>
<style>html,body{margin:0;height:100%%;background:%[2]s;font:20px sans-serif}
a,button{display:block;width:320px;height:110px;margin:16px;border:0;font-size:20px}
#link{background:#ffeb3b}#pop{background:#e000ff}#next{background:#00c853}</style>
<a id=link href="/page/opened">open me</a>
<button id=pop onclick="window.open('/page/popup')">a window</button>
<a id=next href="/page/second">next page</a>
<p>apple pie, apple tart and apple juice</p>
<script>
const rep=(what)=>fetch('/report?page=%[1]s&what='+what+'&w='+innerWidth+'&h='+innerHeight+'&dpr='+devicePixelRatio,{cache:'no-store'})
addEventListener('pageshow',()=>rep('show'))
let t=0;addEventListener('resize',()=>{clearTimeout(t);t=setTimeout(()=>rep('resize'),80)})
let last=0;setInterval(()=>{let n=0;if(window.CSS&&CSS.highlights)for(const [,h] of CSS.highlights)n+=h.size;if(n!==last){last=n;rep('found'+n)}},100)
</script>`

var navColours = map[string]string{"start": "#2962ff", "opened": "#ff6d00", "popup": "#00bfa5", "second": "#9e9e9e", "typed": "#795548"}

func newNavSite(t *testing.T) *navSite {
	s := &navSite{loads: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /page/{name}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		key := name
		if r.URL.RawQuery != "" {
			key += "?" + r.URL.RawQuery
		}
		s.mu.Lock()
		s.loads[key]++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, navPage, name, navColours[name])
	})
	mux.HandleFunc("GET /report", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		wd, _ := strconv.Atoi(q.Get("w"))
		ht, _ := strconv.Atoi(q.Get("h"))
		dpr, _ := strconv.ParseFloat(q.Get("dpr"), 64)
		s.mu.Lock()
		s.reports = append(s.reports, navReport{Page: q.Get("page"), What: q.Get("what"), W: wd, H: ht, DPR: dpr})
		s.mu.Unlock()
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	t.Cleanup(func() {
		// What the pages said tells which step went wrong.
		if t.Failed() {
			s.mu.Lock()
			defer s.mu.Unlock()
			t.Logf("pages served: %v\nreports: %+v", s.loads, s.reports)
		}
	})
	return s
}

func (s *navSite) loaded(page string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loads[page]
}

// last is the newest report of page whose What starts with what.
func (s *navSite) last(page, what string) (navReport, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.reports) - 1; i >= 0; i-- {
		if r := s.reports[i]; r.Page == page && strings.HasPrefix(r.What, what) {
			return r, true
		}
	}
	return navReport{}, false
}

// laidOutAt waits until page reports a viewport that ok accepts.
func (s *navSite) laidOutAt(t *testing.T, what, page string, ok func(navReport) bool) navReport {
	t.Helper()
	var got navReport
	testkit.WaitFor(t, 30*time.Second, what, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i := len(s.reports) - 1; i >= 0; i-- {
			if r := s.reports[i]; r.Page == page && (r.What == "show" || r.What == "resize") {
				got = r
				return ok(r)
			}
		}
		return false
	})
	return got
}

// waitShows waits until page has been shown n times (its pageshow: a
// load, a reload, or a return from the back-forward cache).
func (s *navSite) waitShows(t *testing.T, what, page string, n int) {
	t.Helper()
	testkit.WaitFor(t, 30*time.Second, what, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		k := 0
		for _, r := range s.reports {
			if r.Page == page && r.What == "show" {
				k++
			}
		}
		return k >= n
	})
}

// waitLoads waits until page has been served n times.
func (s *navSite) waitLoads(t *testing.T, what, page string, n int) {
	t.Helper()
	testkit.WaitFor(t, 30*time.Second, what, func() bool { return s.loaded(page) >= n })
}

// viewWidth is the width the main view shows a tab at in a window w wide:
// the window less the sidebar and the view's padding.
func viewWidth(w int) int { return w - 220 - 16 }

// near reports whether a is within tol of b.
func near(a, b, tol int) bool { return a-b <= tol && b-a <= tol }

// windowSize is the app window's size.
func (d *desktopApp) windowSize(t *testing.T) (int, int) {
	t.Helper()
	out, err := exec.Command("xdotool", "getwindowgeometry", "--shell", d.window).Output()
	if err != nil {
		t.Fatalf("window geometry: %v", err)
	}
	var w, h int
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "WIDTH="); ok {
			w, _ = strconv.Atoi(v)
		}
		if v, ok := strings.CutPrefix(l, "HEIGHT="); ok {
			h, _ = strconv.Atoi(v)
		}
	}
	return w, h
}

// tabRows counts the sidebar's tab rows: bands of light title text, one
// every 32 pixels from the first under the sidebar's heading.
func tabRows(img image.Image) int {
	n := 0
	for row := 0; row < 12; row++ {
		y0 := 92 + 32*row
		light := 0
		for y := y0; y < y0+16; y++ {
			for x := 40; x < 180; x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				if r>>8 > 170 && g>>8 > 170 && b>>8 > 170 {
					light++
				}
			}
		}
		if light < 20 {
			break
		}
		n++
	}
	return n
}

// shows reports whether the main view is mostly the colour.
func shows(colour func(r, g, b int) bool) func(image.Image) bool {
	return func(img image.Image) bool { return region(img, colour).Dx() > 500 }
}

// centre is the middle of r.
func centre(r image.Rectangle) image.Point { return image.Pt((r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2) }

var (
	navBlue    = colourNear(0x29, 0x62, 0xff)
	navOrange  = colourNear(0xff, 0x6d, 0x00)
	navYellow  = colourNear(0xff, 0xeb, 0x3b)
	navMagenta = colourNear(0xe0, 0x00, 0xff)
	navGreen   = colourNear(0x00, 0xc8, 0x53)
)

// startNav starts the window app with a planner that must never be asked
// (nothing here is a task) and opens the site's start page in it.
func startNav(t *testing.T) (*desktopApp, *navSite, *modeltest.Server) {
	t.Helper()
	testenv.NeedDisplay(t)
	site := newNavSite(t)
	srv := modeltest.New(t)
	srv.Script("planner", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		return modeltest.Call("done", map[string]any{"summary": "nothing to do", "success": true})
	}})
	d := startWindowApp(t, srv)
	testkit.WaitFor(t, 30*time.Second, "the browser ready", func() bool { return strings.Contains(d.logs.String(), "browser ready") })
	d.typeIn(t, image.Pt(640, 22), site.URL+"/page/start")
	d.xdo(t, "key", "Return")
	site.waitLoads(t, "the start page", "start", 1)
	return d, site, srv
}

// The person's tab is laid out at the size the view shows it, and follows
// the window as it is resized; a link middle-clicked opens a sidebar tab
// in the background, which loads; window.open shows the new window;
// Ctrl+Tab, Ctrl+W, Ctrl+Shift+T, Ctrl+T and Ctrl+L work with the focus
// in the page or in the UI; a Ctrl+click opens a background tab too.
func TestWindowNavTabs(t *testing.T) {
	d, site, srv := startNav(t)
	ww, _ := d.windowSize(t)
	r := site.laidOutAt(t, "the start page laid out at the view's width", "start", func(r navReport) bool { return near(r.W, viewWidth(ww), 24) })
	if r.DPR != 1 {
		t.Errorf("the page's devicePixelRatio is %g, want the window's 1", r.DPR)
	}
	d.xdo(t, "windowsize", d.window, "1000", "700")
	site.laidOutAt(t, "the start page reflowed to the resized window", "start", func(r navReport) bool { return near(r.W, viewWidth(1000), 24) })

	img := d.await(t, "the start page's links shown", func(img image.Image) bool {
		return region(img, navYellow).Dx() > 100 && region(img, navMagenta).Dx() > 100
	})
	link, pop := region(img, navYellow), region(img, navMagenta)
	// A middle click opens the link in a background tab: it loads, the
	// start page stays shown.
	d.xdo(t, "mousemove", "--window", d.window, strconv.Itoa(centre(link).X), strconv.Itoa(centre(link).Y), "click", "2")
	site.waitLoads(t, "the middle-clicked link loading", "opened", 1)
	d.await(t, "a second tab in the sidebar", func(img image.Image) bool { return tabRows(img) == 2 && shows(navBlue)(img) })
	// Ctrl+Tab from the page shows the next tab, which is then laid out at
	// the view's size: it is in the sidebar.
	d.xdo(t, "key", "ctrl+Tab")
	site.laidOutAt(t, "the background tab shown by Ctrl+Tab", "opened", func(r navReport) bool { return near(r.W, viewWidth(1000), 24) })
	// Ctrl+W closes it, and Ctrl+Shift+T brings it back.
	d.await(t, "the background tab shown", shows(navOrange))
	d.xdo(t, "key", "ctrl+w")
	d.await(t, "the start page shown again, alone", func(img image.Image) bool { return tabRows(img) == 1 && shows(navBlue)(img) })
	d.xdo(t, "key", "ctrl+shift+t")
	site.waitLoads(t, "the closed tab reopened", "opened", 2)
	d.await(t, "the reopened tab shown", func(img image.Image) bool { return tabRows(img) == 2 && shows(navOrange)(img) })
	d.xdo(t, "key", "ctrl+shift+Tab")
	img = d.await(t, "the start page shown again", shows(navBlue))
	pop = region(img, navMagenta)

	// window.open from a click shows the new window at once.
	d.clickAt(t, centre(pop))
	site.laidOutAt(t, "the window the page opened shown in the view", "popup", func(r navReport) bool { return near(r.W, viewWidth(1000), 24) })

	// Ctrl+T opens a tab with the address box focused: typing goes there.
	d.xdo(t, "key", "ctrl+t")
	d.xdo(t, "sleep", "0.3")
	d.xdo(t, "type", "--delay", "10", site.URL+"/page/typed")
	d.xdo(t, "key", "Return")
	site.waitLoads(t, "the page typed into the new tab", "typed", 1)
	// Ctrl+L with the focus in the page selects the address: what is typed
	// replaces it.
	d.await(t, "the typed page shown", func(img image.Image) bool { return region(img, navGreen).Dx() > 100 })
	d.clickAt(t, centre(region(d.capture(), navGreen)).Add(image.Pt(0, 200)))
	d.xdo(t, "key", "ctrl+l")
	d.xdo(t, "type", "--delay", "10", site.URL+"/page/second")
	d.xdo(t, "key", "Return")
	site.waitLoads(t, "the page typed after Ctrl+L", "second", 1)
	// A Ctrl+click opens the link in the background too.
	img = d.await(t, "the second page shown", func(img image.Image) bool { return region(img, navYellow).Dx() > 100 })
	link = region(img, navYellow)
	d.xdo(t, "mousemove", "--window", d.window, strconv.Itoa(centre(link).X), strconv.Itoa(centre(link).Y))
	d.xdo(t, "keydown", "ctrl", "click", "1", "keyup", "ctrl")
	site.waitLoads(t, "the Ctrl+clicked link loading", "opened", 3)
	d.await(t, "its tab in the sidebar, the second page still shown", func(img image.Image) bool {
		return tabRows(img) == 5 && region(img, navYellow).Dx() > 100 && region(img, navOrange).Dx() < 500
	})
	if n := len(srv.Requests("planner")); n != 0 {
		t.Errorf("the planner was asked %d times: an address went as a task", n)
	}
}

// toolbarButton is where the toolbar's nth button (0 back, 1 forward, 2
// reload) sits in the window: right of the brand, 32 pixels apart.
func toolbarButton(n int) image.Point { return image.Pt(toolbarLeft+16+32*n, 22) }

// buttonDrawn is how strongly the toolbar's nth button's glyph stands out
// of the header: the largest difference, over its 24-pixel square, from
// the colour at its corner. A disabled button is drawn at a third of its
// opacity.
func buttonDrawn(img image.Image, n int) int {
	c := toolbarButton(n)
	at := func(x, y int) (int, int, int) {
		r, g, b, _ := img.At(x, y).RGBA()
		return int(r >> 8), int(g >> 8), int(b >> 8)
	}
	br, bg, bb := at(c.X-12, c.Y-12)
	most := 0
	for y := c.Y - 12; y < c.Y+12; y++ {
		for x := c.X - 12; x < c.X+12; x++ {
			r, g, b := at(x, y)
			most = max(most, abs(r-br)+abs(g-bg)+abs(b-bb))
		}
	}
	return most
}

func abs(v int) int { return max(v, -v) }

// clickButton clicks the toolbar's nth button once it is drawn enabled,
// as strongly as the reload button, which is whenever a tab is shown: a
// person clicks a button they see enabled.
func (d *desktopApp) clickButton(t *testing.T, n int) {
	t.Helper()
	d.await(t, fmt.Sprintf("toolbar button %d enabled", n), func(img image.Image) bool {
		return buttonDrawn(img, n)*10 >= buttonDrawn(img, 2)*7
	})
	d.clickAt(t, toolbarButton(n))
}

// toolbarLeft is where the toolbar starts: the header's padding, the
// brand and the gap after it.
const toolbarLeft = 78

// The toolbar and the shortcuts on the page: back by Alt+Left, forward
// and reload by their buttons, F5; the address box shows the page's URL
// after navigating, and Esc takes an edit back; Ctrl+F highlights and
// counts the matches, Esc clears them; Ctrl+plus and Ctrl+0 zoom the page,
// which lays out narrower and draws larger.
func TestWindowNavPage(t *testing.T) {
	d, site, srv := startNav(t)
	img := d.await(t, "the start page's links shown", func(img image.Image) bool { return region(img, navGreen).Dx() > 100 })
	save(t, screenshotDir(t), "desktop-browsing", img)
	d.clickAt(t, centre(region(img, navGreen)))
	site.waitShows(t, "the next page", "second", 1)
	d.xdo(t, "key", "alt+Left")
	site.waitShows(t, "Alt+Left going back", "start", 2)
	d.await(t, "the start page shown again", func(img image.Image) bool { return region(img, navMagenta).Dx() > 100 })
	d.clickButton(t, 1)
	site.waitShows(t, "the forward button", "second", 2)
	d.clickButton(t, 2)
	site.waitShows(t, "the reload button", "second", 3)
	d.clickButton(t, 0)
	site.waitShows(t, "the back button", "start", 3)
	d.xdo(t, "key", "alt+Right")
	site.waitShows(t, "Alt+Right going forward", "second", 4)
	d.xdo(t, "key", "F5")
	site.waitShows(t, "F5 reloading", "second", 5)

	// An edit taken back by Esc: Enter then opens the page's own URL.
	d.clickAt(t, image.Pt(640, 22))
	d.xdo(t, "key", "End")
	d.xdo(t, "type", "--delay", "10", "?typo")
	d.xdo(t, "key", "Escape", "Return")
	site.waitShows(t, "the restored address opened", "second", 6)
	// The box holds the page's URL: what is typed after it extends it.
	d.clickAt(t, image.Pt(640, 22))
	d.xdo(t, "key", "End")
	d.xdo(t, "type", "--delay", "10", "?more")
	d.xdo(t, "key", "Return")
	site.waitLoads(t, "the address extended", "second?more", 1)
	if n := site.loaded("second?typo"); n != 0 {
		t.Errorf("the edit Esc took back was opened %d times", n)
	}

	// Find in page, from the page: three matches highlighted, cleared on Esc.
	img = d.await(t, "the page shown", func(img image.Image) bool { return region(img, navGreen).Dx() > 100 })
	d.clickAt(t, centre(region(img, navGreen)).Add(image.Pt(0, 190)))
	d.xdo(t, "key", "ctrl+f")
	// Typed once the bar shows, as a person would: it takes the focus as
	// it is drawn.
	w := img.Bounds().Dx()
	d.awaitRedrawn(t, "the find bar", img, image.Rect(w-200, 56, w-20, 84))
	d.xdo(t, "type", "--delay", "20", "apple")
	testkit.WaitFor(t, 30*time.Second, "three matches highlighted", func() bool { r, ok := site.last("second", "found"); return ok && r.What == "found3" })
	d.xdo(t, "key", "Return", "Escape")
	testkit.WaitFor(t, 30*time.Second, "the highlights cleared", func() bool { r, ok := site.last("second", "found"); return ok && r.What == "found0" })

	// Zoom: 110% lays the page out narrower and draws it larger.
	before := site.laidOutAt(t, "the page at 100%", "second", func(r navReport) bool { return r.DPR == 1 })
	d.xdo(t, "key", "ctrl+plus")
	site.laidOutAt(t, "the page zoomed to 110%", "second", func(r navReport) bool {
		return r.DPR > 1.09 && r.DPR < 1.11 && near(r.W, before.W*10/11, 3)
	})
	d.xdo(t, "key", "ctrl+0")
	site.laidOutAt(t, "the page back at 100%", "second", func(r navReport) bool { return r.DPR == 1 && r.W == before.W })
	if n := len(srv.Requests("planner")); n != 0 {
		t.Errorf("the planner was asked %d times: an address went as a task", n)
	}
}
