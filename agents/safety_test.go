package agents

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a    Action
		t    Target
		want Class
	}{
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Place order"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Pay now"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Buy"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Delete repository"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Remove skill"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Send message"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Publish"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Continue", Form: "checkout"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Continue", URL: "https://shop.test/checkout/step2"}, Irreversible},
		{Action{Kind: ActClickAt, X: 5, Y: 5}, Target{URL: "https://shop.test/payment"}, Irreversible},
		{Action{Kind: ActType, Ref: "e1", Text: "4111", Submit: true}, Target{Role: "textbox", Name: "Card", Form: "payment"}, Irreversible},
		{Action{Kind: ActPress, Key: "Enter"}, Target{URL: "https://shop.test/checkout"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Add skill"}, Write},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "link", Name: "Orders help", URL: "https://shop.test/account"}, Write},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "link", Name: "Delete account"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "link", Name: "Help", URL: "https://shop.test/payment"}, Write},
		{Action{Kind: ActType, Ref: "e1", Text: "delete"}, Target{Role: "textbox", Name: "Search posts"}, Write},
		{Action{Kind: ActType, Ref: "e1", Text: "x", Submit: true}, Target{Role: "textbox", Name: "Search posts", Form: "search"}, Write},
		{Action{Kind: ActNavigate, URL: "https://shop.test/checkout"}, Target{}, Read},
		{Action{Kind: ActScroll, Direction: "down"}, Target{}, Read},
		{Action{Kind: ActSelect, Ref: "e1", Option: "Delete"}, Target{Role: "combobox"}, Write},
	} {
		got, why := Classify(tc.a, tc.t)
		if got != tc.want {
			t.Errorf("Classify(%s on %+v) = %v (%s), want %v", tc.a, tc.t, got, why, tc.want)
		}
		if got == Irreversible && why == "" {
			t.Errorf("Classify(%s on %+v): no reason", tc.a, tc.t)
		}
	}
}

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
