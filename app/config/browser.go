package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"vroom/browser"
)

// BrowserSettings say where agents' tabs open. With no endpoints, in the
// Chromium Vroom launches on this computer; with some, in those remote
// browsers, each new tab in the least-loaded one up (remote.Pool).
type BrowserSettings struct {
	// Endpoints are remote browsers' CDP addresses: ws://host:port/…,
	// wss://…?token=… (a browser service's key in the query), or
	// http://host:port, resolved through its /json/version. Empty: this
	// computer.
	Endpoints []string `json:"endpoints"`
	// Downloads is the folder the person's downloads go to; empty: the
	// user's Downloads folder, as Chrome does. Agents' runs keep their own.
	Downloads string `json:"downloads,omitempty"`
	// Sites are the permissions the person answered for good ("allow on
	// every visit", "never allow"), applied to the browser at start.
	Sites []SitePermission `json:"sites,omitempty"`
	// Zoom is the page zoom the person set per site (zoom.go).
	Zoom []SiteZoom `json:"zoom,omitempty"`
}

// SitePermission is one permission remembered for one site.
type SitePermission struct {
	// Origin is scheme://host[:port].
	Origin string `json:"origin"`
	// Name is the permission as the Permissions API names it
	// (geolocation, notifications, camera, microphone).
	Name string `json:"name"`
	// Allowed: granted; otherwise denied.
	Allowed bool `json:"allowed"`
}

// Remote reports whether tabs open in remote browsers.
func (b BrowserSettings) Remote() bool { return len(b.Endpoints) > 0 }

// validate checks every endpoint's form (no request is made), naming the
// field and the entry; a duplicate is an error too, since it would
// double one browser's share of the tabs.
func (b BrowserSettings) Validate() error {
	seen := map[string]bool{}
	for i, e := range b.Endpoints {
		field := fmt.Sprintf("browser.endpoints[%d]", i)
		if err := browser.CheckEndpoint(e); err != nil {
			return &FieldError{field, endpointMessage(err)}
		}
		key := strings.TrimRight(strings.TrimSpace(e), "/")
		if seen[key] {
			return &FieldError{field, fmt.Sprintf("%s is listed twice", browser.EndpointName(e))}
		}
		seen[key] = true
	}
	if err := validateZoom(b.Zoom); err != nil {
		return err
	}
	if d := b.Downloads; d != "" && !filepath.IsAbs(d) && !strings.HasPrefix(d, "~/") {
		return &FieldError{"browser.downloads", fmt.Sprintf("%q is not a full path: give one such as /home/you/Downloads or ~/Downloads", d)}
	}
	return nil
}

// DownloadsDir is the folder the person's downloads go to: Downloads with
// ~/ made the home folder, else ~/Downloads; "" when there is no home.
func (b BrowserSettings) DownloadsDir() string {
	home, err := os.UserHomeDir()
	switch {
	case b.Downloads != "" && !strings.HasPrefix(b.Downloads, "~/"):
		return b.Downloads
	case err != nil:
		return ""
	case b.Downloads != "":
		return filepath.Join(home, b.Downloads[2:])
	}
	return filepath.Join(home, "Downloads")
}

// endpointMessage is an endpoint's error without the sentinel's words,
// which the field already says, and with the forms that work.
func endpointMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), browser.ErrBadEndpoint.Error()+": ")
	return msg + " (e.g. ws://127.0.0.1:9222/devtools/browser/…, wss://host?token=…, or http://host:9222)"
}
