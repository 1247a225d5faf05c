package agents

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestNavigationPolicy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := newGate(Policy{Allow: []string{"example.test"}, Block: []string{"ads.example.test"}}, nil)
	for url, ok := range map[string]bool{
		"https://example.test/a":         true,
		"https://www.example.test/a":     true,
		"https://ads.example.test/x":     false,
		"https://notexample.test/":       false,
		"https://example.test.evil.org/": false,
		"javascript:alert(1)":            false,
		"file:///etc/passwd":             false,
	} {
		err := g.navigation(ctx, "a", url)
		if (err == nil) != ok || (err != nil && !errors.Is(err, ErrDenied)) {
			t.Errorf("navigation(%q) = %v, want allowed=%v", url, err, ok)
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
		if u, _ := url.Parse(raw); err != nil && !strings.Contains(err.Error(), "unless the run is allowed to reach "+u.Host) {
			t.Errorf("headless refusal does not say what would allow it: %v", err)
		}
	}
	any := newGate(Policy{ConfirmLeaveOrigin: true, AllowAnyHost: true}, nil)
	any.setOrigin("http://127.0.0.1:8000/")
	if err := any.navigation(ctx, "a", "https://elsewhere.test/"); err != nil {
		t.Fatalf("AllowAnyHost: %v", err)
	}
}

// A headless refusal says what would have allowed it in the face's own
// words, which the face passes in; without them, in agents' neutral ones.
func TestRefusalsTakeTheFacesHints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	buy, target := Action{Kind: ActClick, Ref: "e4"}, Target{Role: "button", Name: "Buy now"}
	for _, tc := range []struct {
		hints              Hints
		leave, irrevocable string
	}{
		{Hints{}, "unless the run is allowed to reach away.test:8080)", "unless the run is allowed irreversible actions)"},
		{Hints{LeaveSites: func(host string) string { return "--allow-host " + host + " or --allow-any-host" }, Irreversible: "--allow-irreversible"},
			"unless --allow-host away.test:8080 or --allow-any-host)", "unless --allow-irreversible)"},
	} {
		g := newGate(Policy{ConfirmLeaveOrigin: true}, nil)
		g.hints = tc.hints
		g.setOrigin("https://start.test/")
		if err := g.navigation(ctx, "agent 1", "http://away.test:8080/"); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), tc.leave) {
			t.Errorf("leaving the sites with %+v: %v, want it to say %q", tc.hints, err, tc.leave)
		}
		if _, err := g.action(ctx, "agent 1", buy, target); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), tc.irrevocable) {
			t.Errorf("buying with %+v: %v, want it to say %q", tc.hints, err, tc.irrevocable)
		}
	}
}

func TestLeavingOriginAsksOnceForRun(t *testing.T) {
	t.Parallel()
	var asked []Confirmation
	g := newGate(Policy{ConfirmLeaveOrigin: true}, ConfirmFunc(func(ctx context.Context, c Confirmation) (Decision, error) {
		asked = append(asked, c)
		return AllowForRun, nil
	}))
	g.setOrigin("https://start.test/page")
	ctx := context.Background()
	for _, u := range []string{"https://start.test/other", "https://away.test/", "https://away.test/"} {
		if err := g.navigation(ctx, "agent 1", u); err != nil {
			t.Fatal(err)
		}
	}
	if len(asked) != 1 || asked[0].Action != "navigate to https://away.test/" || !strings.Contains(asked[0].Reason, "https://start.test") {
		t.Fatalf("asked %+v", asked)
	}
}

func TestAllowOnceAsksAgain(t *testing.T) {
	t.Parallel()
	n := 0
	g := newGate(Policy{}, ConfirmFunc(func(ctx context.Context, c Confirmation) (Decision, error) {
		n++
		return AllowOnce, nil
	}))
	buy := Action{Kind: ActClick, Ref: "e4"}
	tgt := Target{Role: "button", Name: "Buy now"}
	for i := 0; i < 2; i++ {
		if _, err := g.action(context.Background(), "a", buy, tgt); err != nil {
			t.Fatal(err)
		}
	}
	if n != 2 {
		t.Fatalf("asked %d times, want 2", n)
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
