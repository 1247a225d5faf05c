package config

import (
	"errors"
	"strings"
	"testing"
)

// A site's zoom is set, replaced and, at 100 %, left out; a kept zoom
// Chrome would not allow, or a host listed twice, is refused naming it.
func TestSiteZoom(t *testing.T) {
	zs := WithZoom(nil, "a.test", 1.25)
	zs = WithZoom(zs, "b.test:8080", 0.9)
	zs = WithZoom(zs, "a.test", 1.5)
	if ZoomOf(zs, "a.test") != 1.5 || ZoomOf(zs, "b.test:8080") != 0.9 || ZoomOf(zs, "c.test") != 1 || len(zs) != 2 {
		t.Fatalf("zooms %+v", zs)
	}
	if zs = WithZoom(zs, "a.test", 1); len(zs) != 1 || ZoomOf(zs, "a.test") != 1 {
		t.Fatalf("100%% kept: %+v", zs)
	}
	for _, c := range []struct {
		zs   []SiteZoom
		want string
	}{
		{[]SiteZoom{{Host: "a.test", Zoom: 9}}, "browser.zoom[0]: zoom 9 for a.test is outside 0.25 to 5"},
		{[]SiteZoom{{Host: " ", Zoom: 2}}, "browser.zoom[0]: must name a host"},
		{[]SiteZoom{{Host: "a.test", Zoom: 2}, {Host: "a.test", Zoom: 3}}, "browser.zoom[1]: a.test is listed twice"},
	} {
		err := BrowserSettings{Zoom: c.zs}.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.zs, err, c.want)
		}
	}
}
