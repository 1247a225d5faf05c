package agents

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// The exfiltration detection: a request an agent's tab sends off the run's
// sites may not carry the person's data unless the person lets it (the
// gate decides, gate.go). The data is what the run has seen of them
// (emails and names shown on pages, what the agents typed), what the
// policy names (the API key) and what the tab holds (cookies of the run's
// sites, values of masked fields); this file remembers it and finds it in
// a request, however encoded.

// leak is one piece of the person's data found in a request.
type leak struct {
	what  string // "your email", "text an agent typed"
	value string // shown to the person; "" for a secret never shown
	hide  string // a secret's value, masked wherever the request is shown
}

func (l leak) String() string {
	if l.value == "" {
		return l.what
	}
	return fmt.Sprintf("%s %q", l.what, l.value)
}

// whatEmail names an email of the person's.
const whatEmail = "your email"

// Minimum lengths below which a value is too common to mean anything in a
// URL ("1", "yes", a two-letter code).
const (
	minTyped  = 4
	minSecret = 6
)

var (
	emailRE = regexp.MustCompile(`(?i)\b[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,24}\b`)
	// A signed-in account's name as pages show it.
	accountNameRE = regexp.MustCompile(`(?i)\b(?:signed in as|logged in as|welcome back,?|welcome,|hello,|hi,)\s+([\p{Lu}][\p{L}'.-]+(?:\s+[\p{Lu}][\p{L}'.-]+){0,2})`)
)

// personal is the person's data the run has seen, safe for concurrent use.
type personal struct {
	mu      sync.Mutex
	values  map[string]leak // lower-cased value -> what it is
	secrets []string        // the policy's secrets (the API key)
}

func newPersonal(secrets []string) *personal {
	p := &personal{values: map[string]leak{}}
	for _, s := range secrets {
		if len(s) >= minSecret {
			p.secrets = append(p.secrets, s)
		}
	}
	return p
}

func (p *personal) add(value string, l leak) {
	v := strings.ToLower(strings.TrimSpace(value))
	if len(v) < minTyped {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.values[v]; !ok {
		p.values[v] = l
	}
}

// saw collects the emails and account names a page shows.
func (p *personal) saw(text string) {
	for _, m := range emailRE.FindAllString(text, -1) {
		p.add(m, leak{what: whatEmail, value: m})
	}
	for _, m := range accountNameRE.FindAllStringSubmatch(text, -1) {
		p.add(m[1], leak{what: "your name", value: m[1]})
	}
}

// typed remembers what an agent typed into a page.
func (p *personal) typed(text string, sensitive bool) {
	if sensitive {
		p.add(text, leak{what: "a masked field's value"})
		return
	}
	p.add(text, leak{what: "text an agent typed", value: text})
}

// leaks lists the person's data found in a request's URL and body, with
// extra (the tab's cookies and masked values) searched too. The URL and
// body are searched as sent and percent-decoded; each value also in
// base64.
func (p *personal) leaks(rawURL, body string, extra []Secret) []leak {
	return p.find(rawURL, body, extra, false)
}

// secretLeaks is leaks for the secrets alone (masked values, the API key,
// extra): what a page's script may not send off the sites.
func (p *personal) secretLeaks(rawURL, body string, extra []Secret) []leak {
	return p.find(rawURL, body, extra, true)
}

// find is leaks, or secretLeaks when secretsOnly.
func (p *personal) find(rawURL, body string, extra []Secret, secretsOnly bool) []leak {
	hay := haystack(rawURL) + "\x00" + haystack(body)
	raw := rawURL + "\x00" + body
	label := hostLetters(rawURL)
	var found []leak
	// inHost also looks for v spelled into the host's labels: for an
	// email or a secret, never plain words an agent typed, which name
	// sites as often as not (a search for "github", then github.com).
	in := func(v string, inHost bool) bool {
		lv := strings.ToLower(v)
		if strings.Contains(hay, lv) {
			return true
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
			if strings.Contains(raw, enc.EncodeToString([]byte(v))) {
				return true
			}
		}
		// The encodings a host name can carry, being of one case:
		// hex and base32.
		if strings.Contains(hay, hex.EncodeToString([]byte(v))) || strings.Contains(hay, strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte(v)))) {
			return true
		}
		// In a host name, the value's letters and digits in order, its
		// punctuation dropped or made hyphens and dots
		// (jordan-lee-example-com.attacker.example).
		lt := letters(lv)
		return inHost && len(lt) >= minSecret && strings.Contains(label, lt)
	}
	p.mu.Lock()
	for v, l := range p.values {
		if secretsOnly && l.value != "" {
			continue // shown or typed in the clear: not a secret
		}
		if in(v, l.value == "" || l.what == whatEmail) {
			if l.value == "" {
				l.hide = v
			}
			found = append(found, l)
		}
	}
	secrets := p.secrets
	p.mu.Unlock()
	for _, s := range secrets {
		if in(s, true) {
			found = append(found, leak{what: "the API key", hide: s})
		}
	}
	for _, s := range extra {
		if len(s.Value) >= minSecret && in(s.Value, true) {
			found = append(found, leak{what: s.What, hide: s.Value})
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].String() < found[j].String() })
	return found
}

// hostLetters is the letters and digits of raw's host name, lower case:
// what data spelled into its labels reads as.
func hostLetters(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return letters(strings.ToLower(u.Hostname()))
}

// letters is s with all but its letters and digits left out.
func letters(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, s)
}

// haystack is s lower-cased, with its percent-encoding (and a form's +
// for space) undone once and twice, so an encoded value is still found.
func haystack(s string) string {
	out := strings.ToLower(s)
	cur := s
	for range 2 {
		d, err := url.QueryUnescape(cur)
		if err != nil {
			d, err = url.PathUnescape(cur)
		}
		if err != nil || d == cur {
			break
		}
		out += "\x00" + strings.ToLower(d)
		cur = d
	}
	return out
}

// masked is raw with the secrets among found masked, so a card or a log
// line never shows them.
func masked(raw string, found []leak) string {
	for _, l := range found {
		if l.hide == "" {
			continue
		}
		for _, v := range []string{l.hide, url.QueryEscape(l.hide), base64.StdEncoding.EncodeToString([]byte(l.hide)), base64.RawURLEncoding.EncodeToString([]byte(l.hide))} {
			raw = replaceFold(raw, v, "••••")
		}
	}
	return raw
}

// replaceFold replaces old in s, ignoring case.
func replaceFold(s, old, new string) string {
	if old == "" {
		return s
	}
	ls, lo := strings.ToLower(s), strings.ToLower(old)
	var b strings.Builder
	for {
		i := strings.Index(ls, lo)
		if i < 0 || len(ls) != len(s) {
			break
		}
		b.WriteString(s[:i] + new)
		s, ls = s[i+len(old):], ls[i+len(old):]
	}
	b.WriteString(s)
	return b.String()
}

// exfilReason is the card's reason: where the data would go and what it is.
func exfilReason(u *url.URL, found []leak, sites string) string {
	names := make([]string, len(found))
	for i, l := range found {
		names[i] = l.String()
	}
	return fmt.Sprintf("it would send %s to %s, outside %s", strings.Join(names, ", "), u.Host, sites)
}
