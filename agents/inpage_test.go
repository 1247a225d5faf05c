package agents

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestRefusedInPageIsARefusal: what the browser refused in the page is a
// refusal naming what and where, whatever the policy allows, and the
// person is not asked about it.
func TestRefusedInPageIsARefusal(t *testing.T) {
	t.Parallel()
	asked := 0
	g := newGate(Policy{AllowAnyHost: true, AllowIrreversible: true}, ConfirmFunc(func(context.Context, Confirmation) (Decision, error) {
		asked++
		return AllowForRun, nil
	}))
	g.setOrigin("http://127.0.0.1:8000/")
	for _, tc := range []struct {
		r    Request
		want string
	}{
		{Request{URL: "ws://127.0.0.1:9/", InPage: "a WebSocket", Script: true}, "a WebSocket to 127.0.0.1:9: denied"},
		{Request{URL: "http://127.0.0.1:8000", InPage: "a service worker's registration", Script: true}, "a service worker's registration to 127.0.0.1:8000"},
		{Request{InPage: "a WebRTC connection", Script: true}, "a WebRTC connection: denied"},
	} {
		err := g.request(context.Background(), "agent 1", nil, tc.r)
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("request(%+v) = %v, want a refusal naming %q", tc.r, err, tc.want)
		}
	}
	if asked != 0 {
		t.Errorf("the person was asked %d times", asked)
	}
}
