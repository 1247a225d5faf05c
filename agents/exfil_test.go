package agents

import (
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
