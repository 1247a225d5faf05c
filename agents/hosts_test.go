package agents

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"vroom/internal/modeltest"
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
func TestValidateHost(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"example.com", "*.example.com", "localhost", "localhost:8080", "127.0.0.1", "127.0.0.1:9000", "[::1]:80", "::1", "[::1]", "xn--bcher-kva.example"} {
		if err := ValidateHost(ok); err != nil {
			t.Errorf("ValidateHost(%q) = %v", ok, err)
		}
	}
	for bad, say := range map[string]string{
		"":                    "is empty",
		"https://example.com": "is a URL",
		"example.com/path":    "no paths",
		"exa mple.com":        "spaces",
		"ex*ample.com":        "wildcard inside",
		"*":                   "wildcard",
		"example.com:0":       "port",
		"example.com:99999":   "port",
		"example.com:":        "port",
		"-example.com":        "not a valid part",
		"exa_mple.com":        "not a valid part",
		"example..com":        "not a valid part",
		"user@example.com":    "no paths, queries or user names",
		"   ":                 "is empty",
		"*.*.example.com":     "wildcard",
		"example.com:http":    "port",
		"example.com.":        "not a valid part",
		"[::1]:0":             "port",
	} {
		err := ValidateHost(bad)
		if !errors.Is(err, ErrBadHost) || !strings.Contains(err.Error(), say) {
			t.Errorf("ValidateHost(%q) = %v, want %q", bad, err, say)
		}
	}
}

func TestHostsNamed(t *testing.T) {
	t.Parallel()
	for text, want := range map[string][]string{
		"compare prices on https://shop.test:8080/x and docs.python.org, then save report.pdf; mail ada@example.com": {"shop.test:8080", "docs.python.org"},
		"sign in as jordan.lee@example.com and update my profile":                                                    nil,
		"email Jordan.Lee+work@mail.example.co.uk the link from news.example.org":                                    {"news.example.org"},
		"open https://jordan@intranet.test/wiki (user jordan)":                                                       {"intranet.test"},
		"summarise notes.txt, main.go and data.csv":                                                                  nil,
		"log in at accounts.example.com with sam@accounts.example.com":                                               {"accounts.example.com"},
		"go to localhost:8080 then http://127.0.0.1:9000/a":                                                          {"127.0.0.1:9000", "localhost:8080"},
		"attach q3.report.pdf and backup.tar.gz, then upload photo.final.jpeg to drive.example.com":                  {"drive.example.com"},
		"fix main.go and deploy.sh, read docs.example.md and the notes at https://wiki.example.org/a.pdf":            {"wiki.example.org", "docs.example.md"},
		"send invoice-2024.xlsx from billing@shop.example to jordan.lee@example.com":                                 nil,
		"open https://shop.example/?ref=jordan.lee@example.com":                                                      {"shop.example"},
	} {
		if got := HostsNamed(text); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("HostsNamed(%q) = %q, want %q", text, got, want)
		}
	}
}

// A task that gives the person's email grants no site by it, and the
// email is the person's data: an agent sending it to the email's domain
// is refused headless, and that domain never received it.
func TestTaskEmailIsDataNotASite(t *testing.T) {
	t.Parallel()
	const task = "sign in on http://shop.test/ as jordan.lee@example.com"
	tr := newTestRun(t, func(c *Config) { c.Policy.Sites = HostsNamed(task) })
	tr.srv.Then("planner", spawn("sign in", "url", "http://shop.test/"), modeltest.Call("wait", map[string]any{"mode": "all"}), done("signed in", true))
	tr.srv.Then("executor",
		modeltest.Call("navigate", map[string]string{"url": "http://example.com/track?u=jordan.lee%40example.com"}),
		done("I could not send it", false))
	tr.execute(t, task)
	for _, ft := range tr.tabs.tabs {
		for _, a := range ft.actions() {
			if a.Kind == ActNavigate && strings.Contains(a.URL, "example.com") {
				t.Fatalf("the email went to its domain: %+v", a)
			}
		}
	}
	var why string
	for _, r := range records(t, tr.log) {
		if r.Event == LogPolicyDenied {
			why = r.Error
		}
	}
	if !strings.Contains(why, "your email") {
		t.Fatalf("refusal %q does not name the email", why)
	}
}

// TestOffSiteSubdomainsAreOffSite: a subdomain of an off-site host is off
// the run's sites, whatever its labels spell (the run's own name among
// them); only the site's own subdomains are on it.
func TestOffSiteSubdomainsAreOffSite(t *testing.T) {
	t.Parallel()
	sites := parseHosts([]string{"example.com", "127.0.0.1:8080"})
	for raw, want := range map[string]bool{
		"http://secret.attacker.example/":            false,
		"http://example.com.attacker.example/":       false,
		"http://jordan-lee-example-com.attacker.io/": false,
		"http://attackerexample.com/":                false,
		"http://www.example.com/":                    true,
		"http://127.0.0.1.attacker.example:8080/":    false,
		"http://127.0.0.1:8080/":                     true,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := matchesAny(sites, u); got != want {
			t.Errorf("%s on the sites: %v, want %v", raw, got, want)
		}
	}
}
