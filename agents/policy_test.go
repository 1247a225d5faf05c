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
		// Words in their role: the verb that leads the name commits; the
		// same word as a noun does not.
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Like post 137"}, Write},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Post 137: 12 likes"}, Write},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "link", Name: "Post a job"}, Write},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Post a job"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Delete"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Yes, delete it"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Confirm purchase"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Pay 12.00 €"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Check out"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Post comment"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "link", Name: "Unsubscribe"}, Irreversible},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "link", Name: "Order history"}, Write},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Order #4521 details"}, Write},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "link", Name: "Payment methods"}, Write},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "link", Name: "Send feedback"}, Write},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Proceed to checkout"}, Write},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Share this post"}, Write},
		{Action{Kind: ActClick, Ref: "e1"}, Target{Role: "button", Name: "Posts"}, Write},
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
