package agents

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestValidateHost(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"example.com", "*.example.com", "localhost", "localhost:8080", "127.0.0.1", "127.0.0.1:9000", "[::1]:80", "xn--bcher-kva.example"} {
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
	} {
		err := ValidateHost(bad)
		if !errors.Is(err, ErrBadHost) || !strings.Contains(err.Error(), say) {
			t.Errorf("ValidateHost(%q) = %v, want %q", bad, err, say)
		}
	}
}

func TestHostsNamed(t *testing.T) {
	t.Parallel()
	got := HostsNamed("compare prices on https://shop.test:8080/x and docs.python.org, then save report.pdf; mail ada@example.com")
	want := []string{"shop.test:8080", "docs.python.org", "example.com"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("HostsNamed = %q, want %q", got, want)
	}
}

// The run's sites are a set: every page the run starts on, the task's
// hosts and what the person allowed; ports tell origins apart.
func TestSitesSet(t *testing.T) {
	t.Parallel()
	g := newGate(Policy{ConfirmLeaveOrigin: true, Sites: []string{"docs.test"}}, nil)
	g.setOrigin("http://127.0.0.1:8000/blog")
	g.setOrigin("https://shop.test/cart")
	ctx := context.Background()
	for raw, ok := range map[string]bool{
		"http://127.0.0.1:8000/other": true,
		"http://127.0.0.1:9000/":      false, // another port, another origin
		"http://localhost:8000/":      false, // another host
		"https://www.shop.test/":      true,
		"https://docs.test/a":         true,
		"http://api.docs.test:81/":    true,
		"https://elsewhere.test/":     false,
	} {
		err := g.navigation(ctx, "agent 1", raw)
		if (err == nil) != ok {
			t.Errorf("navigation(%s) = %v, want allowed=%v", raw, err, ok)
		}
		if err != nil && !strings.Contains(err.Error(), "--allow-any-host") {
			t.Errorf("headless refusal does not say what would allow it: %v", err)
		}
	}
	any := newGate(Policy{ConfirmLeaveOrigin: true, AllowAnyHost: true}, nil)
	any.setOrigin("http://127.0.0.1:8000/")
	if err := any.navigation(ctx, "a", "https://elsewhere.test/"); err != nil {
		t.Fatalf("--allow-any-host: %v", err)
	}
}

// The person's data in a request off the sites needs the person, even
// with --allow-any-host and --allow-irreversible; the card names the
// destination and the data; headless, it is denied.
func TestExfiltrationNeedsPerson(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	headless := newGate(Policy{AllowAnyHost: true, AllowIrreversible: true, Secrets: []string{"sk-test-123456"}}, nil)
	headless.setOrigin("http://127.0.0.1:8000/")
	headless.seen.saw("Signed in as Ada Lovelace · ada@example.com")
	headless.seen.typed("my secret plan", false)
	headless.seen.typed("hunter22", true)
	for _, tc := range []struct {
		url, body, say string
	}{
		{"http://localhost:9/c?d=ada%40example.com", "", `your email "ada@example.com"`},
		{"http://localhost:9/c?n=Ada+Lovelace", "", `your name "Ada Lovelace"`},
		{"http://localhost:9/c", "note=my+secret+plan", `text an agent typed "my secret plan"`},
		{"http://localhost:9/c?p=aHVudGVyMjI", "", "a masked field's value"},
		{"http://localhost:9/c?k=sk-test-123456", "", "the API key"},
	} {
		err := headless.request(ctx, "agent 1", nil, Request{URL: tc.url, Method: "POST", Body: tc.body})
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), tc.say) || !strings.Contains(err.Error(), "localhost:9") {
			t.Errorf("request(%s, %q) = %v, want a refusal naming %s", tc.url, tc.body, err, tc.say)
		}
		if strings.Contains(err.Error(), "hunter22") || strings.Contains(err.Error(), "sk-test") {
			t.Errorf("a secret is shown: %v", err)
		}
	}
	if err := headless.request(ctx, "agent 1", nil, Request{URL: "http://localhost:9/c?q=weather"}); err != nil {
		t.Errorf("a request without the person's data: %v", err)
	}
	if err := headless.request(ctx, "agent 1", nil, Request{URL: "http://127.0.0.1:8000/c?d=ada@example.com"}); err != nil {
		t.Errorf("the person's data within the sites: %v", err)
	}

	var asked []Confirmation
	g := newGate(Policy{ConfirmLeaveOrigin: true}, ConfirmFunc(func(ctx context.Context, c Confirmation) (Decision, error) {
		asked = append(asked, c)
		return AllowOnce, nil
	}))
	g.setOrigin("http://127.0.0.1:8000/")
	g.seen.saw("ada@example.com")
	dest := "http://localhost:9/collect?data=ada@example.com"
	if err := g.navigation(ctx, "agent 1", dest); err != nil {
		t.Fatal(err)
	}
	// The approved navigation's request passes once; a second is asked.
	for range 2 {
		if err := g.request(ctx, "agent 1", nil, Request{URL: dest, Method: "GET"}); err != nil {
			t.Fatal(err)
		}
	}
	if len(asked) != 2 || asked[0].Target != "http://localhost:9" || !strings.Contains(asked[0].Reason, `your email "ada@example.com" to localhost:9`) {
		t.Fatalf("asked %+v", asked)
	}
}

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
