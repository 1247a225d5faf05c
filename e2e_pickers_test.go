package main

import (
	"image"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// The person's own tab in the real window: the popups headless Chromium
// does not paint (a select's list, a date and a colour picker) are drawn
// by Vroom under their element, chosen with the real mouse and keys, and
// the page's change handlers report each choice to the site.

// formSite is a booking form on a dark page: a green select, an orange
// date input and a colour input showing magenta, whose change handlers
// post the new value to the site.
type formSite struct {
	*httptest.Server
	mu    sync.Mutex
	chose map[string][]string
}

const formPage = `<!doctype html><title>Booking</title>
<style>
body{margin:0;background:#263238;font:22px sans-serif}
#s,#d,#c{position:absolute;left:40px;width:360px;height:48px;font-size:22px;border:none}
#s{top:40px;background:#00c853;color:#000}
#d{top:140px;background:#ff9100;color:#000}
#c{top:240px;width:120px;padding:0}
h1,label{position:absolute;left:440px;color:#eceff1;margin:0}
h1{top:-40px;font-size:28px}
</style>
<h1 style="top:40px;left:600px">Book a table</h1>
<label style="top:52px">Party size</label><label style="top:152px">Date</label><label style="top:252px">Tablecloth colour</label>
<select id=s><option>one<option>two<option>three<option>four<option>five<option>six</select>
<input id=d type=date value=2026-03-14>
<input id=c type=color value=#e000ff>
<script>for (const id of ['s','d','c']) document.getElementById(id).addEventListener('change', e => fetch('/api/chose?'+id+'='+encodeURIComponent(e.target.value), {method:'POST'}))</script>`

func newFormSite(t *testing.T) *formSite {
	s := &formSite{chose: map[string][]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /form", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(formPage))
	})
	mux.HandleFunc("POST /api/chose", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		for k, v := range r.URL.Query() {
			s.chose[k] = append(s.chose[k], v...)
		}
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// last is the last value the page reported for the element id.
func (s *formSite) last(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.chose[id]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// The fixture's colours and the pickers', as they come through the window.
var (
	formGreen   = colourNear(0x00, 0xc8, 0x53)
	formOrange  = colourNear(0xff, 0x91, 0x00)
	formMagenta = colourNear(0xe0, 0x00, 0xff)
	pickerBlue  = colourNear(0x1a, 0x73, 0xe8) // the active option, the chosen day
)

// pickerRow is a list row's height in the window (Picker.svelte's rowHeight).
const pickerRow = 24

// openInView types url in the omnibox of the window's empty room: the
// active tab goes there and is shown large, for the person to use.
func openInView(t *testing.T, d *desktopApp, url string) {
	t.Helper()
	testkit.WaitFor(t, 30*time.Second, "the browser ready", func() bool { return hasLog(d, "browser ready") })
	d.typeIn(t, image.Pt(640, 22), url)
	d.xdo(t, "key", "Return")
}

func hasLog(d *desktopApp, s string) bool { return strings.Contains(d.logs.String(), s) }

// TestWindowPickers: a click on a native select draws its list under it
// (the README's picture); the fourth option clicked with the mouse, then
// the next one chosen with Down and Enter, each reach the page's change
// handler. A date input's indicator opens a calendar, where Right and
// Enter choose the next day; a colour input opens swatches, one clicked.
func TestWindowPickers(t *testing.T) {
	testenv.NeedDisplay(t)
	dir := screenshotDir(t)
	site := newFormSite(t)
	d := startWindowApp(t, modeltest.New(t))
	openInView(t, d, site.URL+"/form")
	img := d.await(t, "the form shown", func(img image.Image) bool {
		return region(img, formGreen).Dx() > 150 && region(img, formOrange).Dx() > 150 && region(img, formMagenta).Dx() > 20
	})
	sel, date := region(img, formGreen), region(img, formOrange)
	// The page's CSS pixels per window pixel, from the select's width.
	scale := float64(sel.Dx()) / 360

	// The list opens under the select, its first option active.
	d.clickAt(t, image.Pt((sel.Min.X+sel.Max.X)/2, (sel.Min.Y+sel.Max.Y)/2))
	img = d.await(t, "the select's list under it", func(img image.Image) bool {
		b := region(img, pickerBlue)
		return b.Dy() >= pickerRow-4 && b.Min.Y >= sel.Max.Y-2 && b.Min.Y <= sel.Max.Y+6 && b.Dx() >= sel.Dx()-8
	})
	save(t, dir, "desktop-select", img)
	first := region(img, pickerBlue)
	d.clickAt(t, image.Pt(first.Min.X+40, first.Min.Y+3*pickerRow+pickerRow/2))
	testkit.WaitFor(t, 15*time.Second, "the page's change handler seeing the fourth option", func() bool { return site.last("s") == "four" })

	// The keyboard: the list opens on the chosen option; Down, Enter.
	d.clickAt(t, image.Pt((sel.Min.X+sel.Max.X)/2, (sel.Min.Y+sel.Max.Y)/2))
	d.await(t, "the list open on the fourth option", func(img image.Image) bool {
		b := region(img, pickerBlue)
		return b.Dy() >= pickerRow-4 && b.Min.Y >= first.Min.Y+3*pickerRow-4 && b.Min.Y <= first.Min.Y+3*pickerRow+4
	})
	d.xdo(t, "key", "Down")
	d.xdo(t, "key", "Return")
	testkit.WaitFor(t, 15*time.Second, "the page's change handler seeing the option chosen by keys", func() bool { return site.last("s") == "five" })

	// The date's calendar indicator at the field's right end.
	d.clickAt(t, image.Pt(date.Max.X-int(10*scale)-1, (date.Min.Y+date.Max.Y)/2))
	d.await(t, "the calendar under the date field, its day marked", func(img image.Image) bool {
		b := region(img, pickerBlue)
		return !b.Empty() && b.Min.Y > date.Max.Y
	})
	d.xdo(t, "key", "Right")
	d.xdo(t, "key", "Return")
	testkit.WaitFor(t, 15*time.Second, "the page's change handler seeing the next day", func() bool { return site.last("d") == "2026-03-15" })

	// The colour input's swatches open under it: the first is clicked.
	left := sel.Min.X
	bottom := sel.Min.Y + int(float64(240+48-40)*scale)
	d.clickAt(t, image.Pt(left+int(60*scale), bottom-int(24*scale)))
	d.await(t, "the swatches under the colour input", func(img image.Image) bool {
		return region(img, colourNear(0x26, 0x32, 0x38)).Dy() > 0 && hasSwatchRow(img, left, bottom)
	})
	d.clickAt(t, image.Pt(left+20, bottom+20))
	testkit.WaitFor(t, 15*time.Second, "the page's change handler seeing a colour", func() bool {
		v := site.last("c")
		return regexp.MustCompile(`^#[0-9a-f]{6}$`).MatchString(v) && v != "#e000ff"
	})
	t.Logf("chose %s, %s and %s at a scale of %.2f", site.last("s"), site.last("d"), site.last("c"), scale)
}

// hasSwatchRow says whether the picture shows the colour picker's white
// panel just under the input at left, bottom.
func hasSwatchRow(img image.Image, left, bottom int) bool {
	white := 0
	for x := left + 2; x < left+200; x++ {
		r, g, b, _ := img.At(x, bottom+4).RGBA()
		if r>>8 > 240 && g>>8 > 240 && b>>8 > 240 {
			white++
		}
	}
	return white > 150
}
