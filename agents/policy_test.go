package agents

import (
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
