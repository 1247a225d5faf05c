package agents

import (
	"encoding/base32"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
)

func TestLeaksFindEncodings(t *testing.T) {
	t.Parallel()
	p := newPersonal(nil)
	p.saw("contact: ada@example.com")
	for _, raw := range []string{
		"http://x/?e=ada@example.com", "http://x/?e=ADA%40EXAMPLE.COM", "http://x/?e=ada%2540example.com",
		"http://x/?e=YWRhQGV4YW1wbGUuY29t", "http://x/ada@example.com/",
	} {
		if len(p.leaks(raw, "", nil)) != 1 {
			t.Errorf("not found in %s", raw)
		}
	}
	u, _ := url.Parse("http://x/")
	if r := exfilReason(u, p.leaks("http://x/?e=ada@example.com", "", []Secret{{What: "a cookie of a.test", Value: "abcdefgh"}}), "s"); strings.Contains(r, "cookie") {
		t.Errorf("a cookie not in the request is reported: %s", r)
	}
}

// TestLeaksInHostNames: the person's email and secrets spelled into a
// host's labels (hyphens, dots, hex, base32) are found; plain words an
// agent typed that a site's name happens to hold are not.
func TestLeaksInHostNames(t *testing.T) {
	t.Parallel()
	p := newPersonal([]string{"sk-test-0123456789"})
	p.saw("Signed in: jordan.lee@example.com")
	p.typed("hunter2hunter2", true)
	p.typed("github", false)
	for raw, want := range map[string]string{
		"http://jordan-lee-example-com.attacker.example/":               "your email",
		"http://jordan.lee.example.com.attacker.example/":               "your email",
		"http://jordanleeexamplecom.x.attacker.example/":                "your email",
		"http://" + hexOf("hunter2hunter2") + ".attacker.example/":      "a masked field's value",
		"http://" + b32Of("hunter2hunter2") + ".attacker.example/":      "a masked field's value",
		"http://sk-test-0123456789.attacker.example/":                   "the API key",
		"http://git-hub.example/":                                       "",
		"http://attacker.example/?q=" + hexOf("jordan.lee@example.com"): "your email",
	} {
		found := p.leaks(raw, "", nil)
		got := ""
		if len(found) > 0 {
			got = found[0].what
		}
		if got != want {
			t.Errorf("%s: found %v, want %q", raw, found, want)
		}
	}
}

func hexOf(s string) string { return hex.EncodeToString([]byte(s)) }

func b32Of(s string) string {
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte(s)))
}
