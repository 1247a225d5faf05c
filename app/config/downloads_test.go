package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The person's downloads folder: a full path or one under ~/, else a clear
// error naming the field; empty is ~/Downloads.
func TestBrowserDownloadsFolder(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	for _, c := range []struct{ in, want string }{
		{"", filepath.Join(home, "Downloads")},
		{"~/Files/web", filepath.Join(home, "Files/web")},
		{"/srv/dl", "/srv/dl"},
	} {
		b := BrowserSettings{Downloads: c.in}
		if err := b.Validate(); err != nil {
			t.Errorf("%q: %v", c.in, err)
		}
		if got := b.DownloadsDir(); got != c.want {
			t.Errorf("%q: folder %q, want %q", c.in, got, c.want)
		}
	}
	err = BrowserSettings{Downloads: "Downloads"}.Validate()
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "browser.downloads" {
		t.Errorf("a relative folder: %v, want a browser.downloads field error", err)
	}
}
