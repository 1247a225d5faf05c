package agents

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// ErrBadHost is wrapped by every host pattern ValidateHost rejects, so a
// face can tell a person's typo from an I/O failure with errors.Is.
var ErrBadHost = errors.New("bad host pattern")

// hostPattern is a parsed host pattern: one of the run's sites, or an
// entry of the allow or block list. It is the one matcher all three use.
// A host name matches itself and its subdomains; an IP address only
// itself. A port, when given, must be the URL's (its scheme's default when
// the URL names none): two origins on one host but different ports are
// different sites, so 127.0.0.1:8080 is not 127.0.0.1:9090, and neither is
// localhost:8080. Without a port, every port matches.
type hostPattern struct {
	host   string // lower case, no "*." prefix; an IP address in its canonical form
	ip     bool   // host is an IP address: no subdomains
	port   string // "" matches any port
	origin string // how people read it: the origin when it came from a page
}

// String renders the pattern as a person wrote it (or the page's origin),
// in a form parseHost reads back.
func (h hostPattern) String() string {
	if h.origin != "" {
		return h.origin
	}
	if h.port != "" {
		return net.JoinHostPort(h.host, h.port)
	}
	if strings.Contains(h.host, ":") {
		return "[" + h.host + "]" // an IPv6 address
	}
	return h.host
}

// matches reports whether u is on h: u's host is h's host or, for a host
// name, a subdomain of it, on h's port when h has one.
func (h hostPattern) matches(u *url.URL) bool {
	host := urlHost(u)
	switch {
	case host == h.host:
	case h.ip || !strings.HasSuffix(host, "."+h.host):
		return false
	}
	return h.port == "" || h.port == effectivePort(u)
}

// matchesAny reports whether u is on any of ps.
func matchesAny(ps []hostPattern, u *url.URL) bool {
	for _, p := range ps {
		if p.matches(u) {
			return true
		}
	}
	return false
}

// urlHost is u's host as patterns hold theirs: lower case, without the
// trailing dot of a fully qualified name (example.com. is example.com),
// an IP address in its canonical form.
func urlHost(u *url.URL) string {
	h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if ip := net.ParseIP(h); ip != nil {
		return ip.String()
	}
	return h
}

// effectivePort is u's port, or its scheme's default.
func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// originSite is the site of a page: its host on its port.
func originSite(u *url.URL) hostPattern {
	host := urlHost(u)
	return hostPattern{host: host, ip: net.ParseIP(host) != nil, port: effectivePort(u), origin: u.Scheme + "://" + u.Host}
}

// parseHosts parses patterns, leaving out those that do not parse: the
// faces validate patterns before a run starts (ValidateHost), so one that
// slipped through matches nothing rather than everything.
func parseHosts(patterns []string) []hostPattern {
	var out []hostPattern
	for _, s := range patterns {
		if hp, err := parseHost(s); err == nil {
			out = append(out, hp)
		}
	}
	return out
}

var labelRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// ValidateHost checks a host pattern as Settings and vroom run take it:
// a host name or IP address, optionally "*." before it (a name's
// subdomains match anyway) and ":port" after it (an IPv6 address then in
// brackets: [::1]:8080). The error says what is wrong and wraps
// ErrBadHost.
func ValidateHost(pattern string) error {
	_, err := parseHost(pattern)
	return err
}

func parseHost(pattern string) (hostPattern, error) {
	bad := func(format string, a ...any) (hostPattern, error) {
		return hostPattern{}, fmt.Errorf("%w: %q %s", ErrBadHost, pattern, fmt.Sprintf(format, a...))
	}
	p := strings.ToLower(pattern)
	switch {
	case strings.TrimSpace(p) == "":
		return bad("is empty: give a host such as example.com")
	case strings.Contains(p, "://"):
		return bad("is a URL: give only its host, such as example.com")
	case strings.ContainsAny(p, " \t\r\n"):
		return bad("contains spaces")
	case strings.ContainsAny(p, "/?#@"):
		return bad("is not a host: no paths, queries or user names, only a host such as example.com")
	}
	p = strings.TrimPrefix(p, "*.")
	if strings.Contains(p, "*") {
		return bad("has a wildcard inside: only a leading *. is allowed, as in *.example.com")
	}
	host, port := p, ""
	if h, pt, err := net.SplitHostPort(p); err == nil {
		host, port = h, pt
		if n, err := strconv.Atoi(pt); err != nil || n < 1 || n > 65535 {
			return bad("has port %q: a port is a number from 1 to 65535", pt)
		}
	} else if strings.Count(p, ":") == 1 {
		return bad("has an empty or malformed port")
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		return hostPattern{host: ip.String(), ip: true, port: port}, nil
	}
	if len(host) > 253 {
		return bad("is longer than a host name may be")
	}
	for _, l := range strings.Split(host, ".") {
		if !labelRE.MatchString(l) {
			return bad("is not a host name: %q is not a valid part (letters, digits and inner hyphens)", l)
		}
	}
	return hostPattern{host: host, port: port}, nil
}

// Hosts a task names: URLs (the host is what follows the scheme, and any
// user before an @), and bare names, with a top-level domain of letters
// (example.com, docs.python.org) or localhost, with an optional port.
var (
	namedURLRE  = regexp.MustCompile(`(?i)\bhttps?://[^\s/?#"'<>]+`)
	namedHostRE = regexp.MustCompile(`(?i)\b(?:(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,24}|localhost)\b(?::\d{1,5})?`)
)

// HostsNamed lists the hosts a task's text names, as host patterns: they
// are among the run's sites, since the person asked for them. An email
// address names a person, not a site: neither its domain nor the part
// before the @ ("jordan.lee") is a host the task asked for, and the
// agents may not send the person's data there on that account. A file
// name (report.pdf) is not a host either.
func HostsNamed(text string) []string {
	var found []string
	for _, m := range namedURLRE.FindAllString(text, -1) {
		if u, err := url.Parse(m); err == nil && u.Host != "" {
			found = append(found, u.Host)
		}
	}
	text = namedURLRE.ReplaceAllString(text, " ")
	text = emailRE.ReplaceAllString(text, " ")
	found = append(found, namedHostRE.FindAllString(text, -1)...)
	var out []string
	seen := map[string]bool{}
	for _, h := range found {
		h = strings.ToLower(strings.TrimSuffix(h, "."))
		if _, err := parseHost(h); err != nil || seen[h] || looksLikeFile(h) {
			continue
		}
		seen[h] = true
		out = append(out, h)
	}
	return out
}

// looksLikeFile tells "report.pdf" or "main.go" from a host: a task that
// names a file does not name a site. An extension no site ends in (pdf,
// docx, csv…) makes a file of any name ("q3.report.pdf",
// "backup.tar.gz"); one that is also a top-level domain some sites use
// (go, md, zip…) only of a name with no other dot, so docs.example.md
// stays a host.
func looksLikeFile(h string) bool {
	i := strings.LastIndexByte(h, '.')
	switch h[i+1:] {
	case "pdf", "txt", "csv", "tsv", "json", "xml", "yaml", "yml", "png", "jpg", "jpeg", "gif", "webp", "svg", "heic",
		"doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods", "rtf", "gz", "tgz", "bz2", "7z", "rar",
		"mp3", "mp4", "wav", "mkv", "exe", "dmg", "iso", "apk", "ics", "vcf", "eml", "log", "htm", "epub", "ipynb":
		return true
	case "go", "js", "ts", "py", "md", "html", "zip", "mov", "sh":
		return !strings.Contains(h[:i], ".")
	}
	return false
}
