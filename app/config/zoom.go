package config

import (
	"fmt"
	"slices"
	"strings"
)

// SiteZoom is the page zoom the person set on one site, kept as Chrome
// keeps it: per host, for every tab of it, across restarts.
type SiteZoom struct {
	// Host is the site's host[:port], as its URLs give it.
	Host string `json:"host"`
	// Zoom is the page zoom, 1 for 100 % (which is never stored).
	Zoom float64 `json:"zoom"`
}

// The page zoom Chrome allows.
const (
	MinZoom = 0.25
	MaxZoom = 5
)

// ZoomOf is host's zoom in zs, 1 when none is kept.
func ZoomOf(zs []SiteZoom, host string) float64 {
	for _, z := range zs {
		if z.Host == host {
			return z.Zoom
		}
	}
	return 1
}

// WithZoom is zs with host's zoom set to z; at 1 (100 %) host is left out.
// zs itself is not changed.
func WithZoom(zs []SiteZoom, host string, z float64) []SiteZoom {
	out := slices.DeleteFunc(slices.Clone(zs), func(s SiteZoom) bool { return s.Host == host })
	if z != 1 && host != "" {
		out = append(out, SiteZoom{Host: host, Zoom: z})
	}
	return out
}

// validateZoom checks each kept zoom: a host, a zoom Chrome allows, no
// host twice.
func validateZoom(zs []SiteZoom) error {
	seen := map[string]bool{}
	for i, z := range zs {
		field := fmt.Sprintf("browser.zoom[%d]", i)
		switch {
		case strings.TrimSpace(z.Host) == "":
			return &FieldError{field, "must name a host"}
		case z.Zoom < MinZoom || z.Zoom > MaxZoom:
			return &FieldError{field, fmt.Sprintf("zoom %g for %s is outside %g to %g", z.Zoom, z.Host, float64(MinZoom), float64(MaxZoom))}
		case seen[z.Host]:
			return &FieldError{field, fmt.Sprintf("%s is listed twice", z.Host)}
		}
		seen[z.Host] = true
	}
	return nil
}
