package main

import (
	"image"
	"path/filepath"
	"strings"
	"testing"

	"vroom/app/config"
)

// The person's browser as Chrome keeps it between pages: a page zoom set
// on a site is the site's, kept in Settings, for its next tabs.

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
