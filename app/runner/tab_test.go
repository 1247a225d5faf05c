package runner

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
)

// TestTabAdapter: the page as an executor sees it: observation, targets
// for the safety gate, verdicts with or without effect, diffs, text and
// screenshots.
func TestTabAdapter(t *testing.T) {
	t.Parallel()
	s := apptest.NewSite(t)
	p := newTabs(t)
	ctx := apptest.Context(t)
	tab, err := p.Open(ctx, "agent 1", s.URL+"/shop.html")
	if err != nil {
		t.Fatal(err)
	}
	obs, err := tab.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if obs.URL != s.URL+"/shop.html" || !strings.Contains(obs.Title, "Checkout") {
		t.Fatalf("%+v", obs)
	}
	place, card, link := modeltest.Ref(obs.Text, "button", "Place order"), modeltest.Ref(obs.Text, "textbox", "Card number"), modeltest.Ref(obs.Text, "link", "quote desk")
	note := modeltest.Ref(obs.Text, "textbox", "Delivery note")
	if place == "" || card == "" || link == "" || note == "" {
		t.Fatalf("controls missing:\n%s", obs.Text)
	}

	checkTargets(t, tab, s.URL, place, card, link)

	o, err := tab.Act(ctx, agents.Action{Kind: agents.ActType, Ref: note, Text: "leave at the door"})
	if err != nil || !o.Effect || o.Navigated {
		t.Fatalf("%v %+v", err, o)
	}
	d, err := tab.Diff(ctx)
	if err != nil || !strings.Contains(d, "leave at the door") {
		t.Fatalf("diff %q %v", d, err)
	}
	if d, err := tab.Diff(ctx); err != nil || d != "" {
		t.Fatalf("nothing changed, yet diff %q %v", d, err)
	}
	// Focus is on the note now: Enter goes to it.
	if tg, _ := tab.Target(ctx, agents.Action{Kind: agents.ActPress, Key: "Enter"}); tg.Name != "Delivery note" {
		t.Fatalf("Enter's target %+v", tg)
	}
	// Focused on the card field, type_focused's text is sensitive.
	if _, err := tab.Act(ctx, agents.Action{Kind: agents.ActClick, Ref: card}); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Diff(ctx); err != nil {
		t.Fatal(err)
	}
	if tg, _ := tab.Target(ctx, agents.Action{Kind: agents.ActTypeFocused, Text: "4111"}); !tg.Sensitive {
		t.Fatalf("type_focused into the card field: %+v", tg)
	}
	o, err = tab.Act(ctx, agents.Action{Kind: agents.ActScroll, Direction: "up"})
	if err != nil || o.Effect || !strings.Contains(o.Summary, "no visible effect") {
		t.Fatalf("scrolling up at the top: %v %+v", err, o)
	}

	text, err := tab.ReadPage(ctx)
	if err != nil || !strings.Contains(text, "1 × Blue mug") {
		t.Fatalf("read %q %v", text, err)
	}
	shot, err := tab.Screenshot(ctx)
	if err != nil || shot.MIME != "image/png" || shot.Width != 1280 || shot.Height != 800 {
		t.Fatalf("%v %+v", err, shot.MIME)
	}
	if img, err := png.Decode(bytes.NewReader(shot.Data)); err != nil || img.Bounds().Dx() != 1280 {
		t.Fatalf("screenshot does not decode: %v", err)
	}

	o, err = tab.Act(ctx, agents.Action{Kind: agents.ActClick, Ref: link})
	if err != nil || !o.Navigated || o.URL != s.URL+"/quote.html" {
		t.Fatalf("%v %+v", err, o)
	}
	s.State(func(s *apptest.Site) {
		if s.Orders != 0 {
			t.Fatal("an order was placed")
		}
	})
}

// checkTargets: what the safety gate learns of a click on Place order (an
// irreversible button), a type into the card field (sensitive), a link
// (its destination) and a ref never observed (none).
func checkTargets(t *testing.T, tab agents.Tab, site, place, card, link string) {
	t.Helper()
	ctx := apptest.Context(t)
	tg, err := tab.Target(ctx, agents.Action{Kind: agents.ActClick, Ref: place})
	if err != nil || tg.Role != "button" || tg.Name != "Place order" || tg.URL != site+"/shop.html" {
		t.Fatalf("%v %+v", err, tg)
	}
	if c, _ := agents.Classify(agents.Action{Kind: agents.ActClick, Ref: place}, tg); c != agents.Irreversible {
		t.Fatalf("Place order classed %v", c)
	}
	if tg, _ := tab.Target(ctx, agents.Action{Kind: agents.ActType, Ref: card, Text: "4111"}); !tg.Sensitive {
		t.Fatalf("card field not sensitive: %+v", tg)
	}
	if tg, _ := tab.Target(ctx, agents.Action{Kind: agents.ActClick, Ref: link}); tg.Role != "link" || tg.URL != site+"/quote.html" {
		t.Fatalf("link target %+v", tg)
	}
	if _, err := tab.Target(ctx, agents.Action{Kind: agents.ActClick, Ref: "e999"}); err == nil {
		t.Fatal("a ref never observed has a target")
	}
}
