package agents

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
)

// One matcher serves the run's sites and both lists: a host name matches
// itself and its subdomains, an IP address only itself, and a port, when
// the pattern names one, must be the URL's (its scheme's default when the
// URL names none).
func TestHostPatternMatches(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, url string
		want         bool
	}{
		// Bare host: itself and its subdomains, any port.
		{"example.com", "https://example.com/a", true},
		{"example.com", "http://example.com:8080/", true},
		{"example.com", "https://www.example.com/", true},
		{"example.com", "https://a.b.example.com/", true},
		{"example.com", "https://notexample.com/", false},
		{"example.com", "https://example.com.evil.org/", false},
		{"example.com", "https://com/", false},
		{"Example.COM", "https://EXAMPLE.com/", true},
		{"example.com", "https://example.com./", true}, // a fully qualified name is the same host
		// A leading "*." changes nothing: subdomains match anyway.
		{"*.example.com", "https://example.com/", true},
		{"*.example.com", "https://api.example.com/", true},
		// host:port: that port only, the scheme's default when none is given.
		{"localhost:8080", "http://localhost:8080/x", true},
		{"localhost:8080", "http://localhost:9090/x", false},
		{"localhost:8080", "http://localhost/x", false},
		{"localhost:80", "http://localhost/x", true},
		{"localhost:443", "https://localhost/x", true},
		{"localhost:443", "http://localhost/x", false},
		{"example.com:8443", "https://api.example.com:8443/", true},
		{"127.0.0.1:8080", "http://127.0.0.1:8080/", true},
		{"127.0.0.1:8080", "http://127.0.0.1:9090/", false},
		{"127.0.0.1:8080", "http://localhost:8080/", false},
		// An IP address has no subdomains.
		{"127.0.0.1", "http://127.0.0.1:5000/", true},
		{"127.0.0.1", "http://1.127.0.0.1/", false},
		{"10.0.0.1", "http://10.0.0.10/", false},
		// IPv6, bare, bracketed and with a port; the URL's spelling is canonicalised.
		{"::1", "http://[::1]:8080/", true},
		{"[::1]", "http://[::1]/", true},
		{"[::1]:8080", "http://[::1]:8080/", true},
		{"[::1]:8080", "http://[::1]:9090/", false},
		{"[::1]:8080", "http://[0:0:0:0:0:0:0:1]:8080/", true},
		{"2001:db8::1", "https://[2001:DB8:0::1]/", true},
		{"::1", "http://127.0.0.1/", false},
	} {
		hp, err := parseHost(tc.pattern)
		if err != nil {
			t.Errorf("parseHost(%q): %v", tc.pattern, err)
			continue
		}
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := hp.matches(u); got != tc.want {
			t.Errorf("%q matches %s = %v, want %v", tc.pattern, tc.url, got, tc.want)
		}
		// What a pattern shows reads back as the same pattern.
		again, err := parseHost(hp.String())
		if err != nil || again != hp {
			t.Errorf("%q shows as %q, which parses as %+v (%v)", tc.pattern, hp.String(), again, err)
		}
	}
}

// A bad pattern is refused with what is wrong, wrapping ErrBadHost.
func TestValidateHostRefuses(t *testing.T) {
	t.Parallel()
	for pattern, say := range map[string]string{
		"":                    "is empty",
		"   ":                 "is empty",
		"https://example.com": "is a URL",
		"example.com/path":    "no paths",
		"user@example.com":    "no paths",
		"exa mple.com":        "spaces",
		"ex*ample.com":        "wildcard",
		"*.*.example.com":     "wildcard",
		"example.com:0":       "port",
		"example.com:70000":   "port",
		"example.com:http":    "port",
		"example.com:":        "port",
		"bad_host.com":        "not a valid part",
		"-bad.com":            "not a valid part",
		"example..com":        "not a valid part",
		"example.com.":        "not a valid part",
		"[::1]:0":             "port",
	} {
		err := ValidateHost(pattern)
		if !errors.Is(err, ErrBadHost) || !strings.Contains(err.Error(), say) {
			t.Errorf("ValidateHost(%q) = %v, want ErrBadHost saying %q", pattern, err, say)
		}
	}
	for _, good := range []string{"example.com", "*.example.com", "localhost", "localhost:8080", "127.0.0.1", "127.0.0.1:9", "::1", "[::1]", "[::1]:8080", "xn--bcher-kva.example"} {
		if err := ValidateHost(good); err != nil {
			t.Errorf("ValidateHost(%q) = %v", good, err)
		}
	}
}

// Settings' lists take host:port as the run's sites do: a blocked host on
// a port blocks that port (it failed open when the lists compared the
// hostname with the raw pattern), and an allowed one allows it (it failed
// closed).
func TestListsWithPorts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name         string
		allow, block []string
		url          string
		want         string // "" allowed, else what the refusal says
	}{
		{"allowed port", []string{"127.0.0.1:8080"}, nil, "http://127.0.0.1:8080/a", ""},
		{"allowed host, other port", []string{"127.0.0.1:8080"}, nil, "http://127.0.0.1:9090/a", "127.0.0.1:9090 is not on the allow list"},
		{"allowed localhost port", []string{"localhost:8080"}, nil, "http://localhost:8080/", ""},
		{"allowed any port", []string{"localhost"}, nil, "http://localhost:8080/", ""},
		{"blocked port", nil, []string{"127.0.0.1:9090"}, "http://127.0.0.1:9090/a", "127.0.0.1:9090 is on the block list"},
		{"blocked host, other port", nil, []string{"127.0.0.1:9090"}, "http://127.0.0.1:8080/a", ""},
		{"blocked subdomain on its port", nil, []string{"example.test:8443"}, "https://ads.example.test:8443/", "ads.example.test:8443 is on the block list"},
		{"blocked over allowed", []string{"example.test"}, []string{"ads.example.test:443"}, "https://ads.example.test/", "ads.example.test is on the block list"},
		{"blocked IPv6 port", nil, []string{"[::1]:9090"}, "http://[::1]:9090/", "[::1]:9090 is on the block list"},
		{"only malformed allowed", []string{"https://example.test"}, nil, "https://example.test/", "is not on the allow list"},
	} {
		g := newGate(Policy{Allow: tc.allow, Block: tc.block}, nil)
		err := g.navigation(ctx, "agent 1", tc.url)
		if tc.want == "" && err != nil {
			t.Errorf("%s: navigation(%s) = %v, want allowed", tc.name, tc.url, err)
		}
		if tc.want != "" && (!errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: navigation(%s) = %v, want a refusal saying %q", tc.name, tc.url, err, tc.want)
		}
		// The request guard applies the same lists to what the browser sends.
		rerr := g.request(ctx, "agent 1", nil, Request{URL: tc.url, Method: "POST"})
		if (rerr == nil) != (tc.want == "") {
			t.Errorf("%s: request(%s) = %v, want allowed=%v", tc.name, tc.url, rerr, tc.want == "")
		}
	}
}
