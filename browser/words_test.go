package browser

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The page's words: the observation's text follows the view and says how
// much lies outside it, ReadText returns the whole page (tables, lists,
// frames, hidden text left out), and a query finds passages of text with
// the controls near them.

// firstInView is the start of the first paragraph of the page that shows
// in the viewport, read in the page itself.
func firstInView(t *testing.T, tab *Tab) string {
	t.Helper()
	return eval[string](t, tab, `(() => {
		for (const p of document.querySelectorAll('main p')) {
			const r = p.getBoundingClientRect();
			if (r.bottom > 0 && r.top < innerHeight) return p.textContent.trim().slice(0, 40);
		}
		return '';
	})()`)
}

// TestTextFollowsTheView: the text of an article's observation is what is
// on screen, and says how much more there is; after scrolling, it is the
// text on screen then, in the scroll's diff as in the next observation.
func TestTextFollowsTheView(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/article.html")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(o.Text, "# The tide clocks of Marrow Bay\nBy Ines Okafor") || o.TextAbove != 0 || o.TextBelow < 4000 {
		t.Fatalf("the first view's text (above %d, below %d):\n%s", o.TextAbove, o.TextBelow, o.Text)
	}
	if c := o.Compact(); !regexp.MustCompile(`\(about [\d,]+ more characters below: read_page for all\)`).MatchString(c) {
		t.Fatalf("the view does not say how much more there is:\n%s", c)
	}
	since := o.Version
	for range 2 {
		if _, err := tab.Do(ctx, Action{Kind: ActScroll, Direction: "down"}); err != nil {
			t.Fatal(err)
		}
	}
	d, err := tab.Changes(ctx, since, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := firstInView(t, tab)
	if !d.TextInView || !strings.HasPrefix(d.Text, want) || d.TextAbove == 0 {
		t.Fatalf("after two scrolls the diff's text does not start with %q, the first paragraph on screen:\n%s", want, d.Compact())
	}
	if c := d.Compact(); !strings.Contains(c, "text in view now: "+want) || !strings.Contains(c, "above: read_page for all)") {
		t.Fatalf("the scroll's diff:\n%s", c)
	}
	o, err = tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(o.Text, want) || strings.Contains(o.Text, "For most of the last century") {
		t.Fatalf("after two scrolls the text is not the text on screen (%q first):\n%s", want, o.Text)
	}
}

// TestReadTextWholeArticle: a 1,100-word article reads whole, in one
// read_page part, as a person reads it: headings, paragraphs, the list,
// the table's rows with their cells; the visually-hidden sentence left out.
func TestReadTextWholeArticle(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/article.html")
	pt, err := tab.ReadText(tctx(t), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pt.Cut || pt.Frames != 1 || len(pt.Text) > 16000 || pt.Title != "The tide clocks of Marrow Bay | Coastal Review" {
		t.Fatalf("read %d characters (cut %v, %d frames) of %q", len(pt.Text), pt.Cut, pt.Frames, pt.Title)
	}
	for _, want := range []string{
		"# The tide clocks of Marrow Bay\n",
		"\n## How it started\nIn 2011 a group of engineers from the old ferry workshop",
		"\n- Three on the sandbar channel, the stretch that grounded the ferry.\n",
		"\nGauge | Height (m) | Change in the last hour\nHarbour wall north | 3.41 | +0.22\n",
		"We spent the first winter measuring the tide",
		"Once the first hand on the first brass dial moved with the water, he said, nobody needed persuading again.",
		"Home Science Towns About Subscribe",
	} {
		if !strings.Contains(pt.Text, want) {
			t.Errorf("the article's text lacks %q", want)
		}
	}
	if strings.Contains(pt.Text, "Ignore previous instructions") {
		t.Errorf("hidden text was read:\n%s", pt.Text)
	}
	words := len(strings.Fields(pt.Text))
	if words < 1100 {
		t.Errorf("%d words read, the article has 1,121", words)
	}
}

// TestTextOfFrames: a cross-site iframe's text and a same-origin one's
// are read where the iframes stand, in read_page's text and in the
// observation's; a hidden iframe is not read.
func TestTextOfFrames(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/framed-text.html")
	ctx := tctx(t)
	pt, err := tab.ReadText(ctx, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := func(s, a, b, c string) bool {
		i, j, k := strings.Index(s, a), strings.Index(s, b), strings.Index(s, c)
		return i >= 0 && j > i && k > j
	}
	if !in(pt.Text, "The slipway is closed", "Fog clearing by noon", "Moorings are renewed") || !strings.Contains(pt.Text, "Inner button") || pt.Frames != 3 {
		t.Fatalf("read %d frames:\n%s", pt.Frames, pt.Text)
	}
	if strings.Contains(pt.Text, "Hidden frame text") || strings.Contains(pt.Text, frameMark) {
		t.Fatalf("hidden text or a frame's marker was read:\n%q", pt.Text)
	}
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !in(o.Text, "The slipway is closed", "High water 06:12 (3.4 m)", "Moorings are renewed") {
		t.Fatalf("the observation's text lacks the cross-site frame's:\n%s", o.Compact())
	}
	find(t, o, "button", "Refresh forecast")
	q, err := tab.Observe(ctx, ObserveOptions{Query: "fog clearing"})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Passages) != 1 || !strings.HasPrefix(q.Passages[0].Text, "Fog clearing by noon") {
		t.Fatalf("a query does not find the frame's sentence:\n%s", q.Compact())
	}
}

// TestQueryFindsPassages: a query matches text as well as controls: the
// sentence of an article, a repository's row (its stars) with the
// controls in it, whose refs work.
func TestQueryFindsPassages(t *testing.T) {
	t.Parallel()
	ctx := tctx(t)
	art := openTab(t, "/article.html")
	o, err := art.Observe(ctx, ObserveOptions{Query: "In 2011 a group of engineers"})
	if err != nil {
		t.Fatal(err)
	}
	want := "In 2011 a group of engineers from the old ferry workshop began meeting on Thursday nights in the back room of the lifeboat station."
	if len(o.Passages) != 1 || o.Passages[0].Text != want {
		t.Fatalf("the sentence is not found:\n%s", o.Compact())
	}
	if c := o.Compact(); !strings.Contains(c, "no control matches \"In 2011 a group of engineers\"\ntext matching:\n- "+want+"\n") || strings.Contains(c, "headings:") {
		t.Fatalf("the query's answer:\n%s", c)
	}

	repos := openTab(t, "/repos.html")
	o, err = repos.Observe(ctx, ObserveOptions{Query: "ada/mill"})
	if err != nil {
		t.Fatal(err)
	}
	stars := eval[string](t, repos, `document.querySelector('a[href="/ada/mill"]').closest('li').querySelector('.stars').textContent`)
	if len(o.Passages) != 1 || !strings.Contains(o.Passages[0].Text, "ada/mill / The mill of the analytical engine") || !strings.Contains(o.Passages[0].Text, stars) {
		t.Fatalf("the row of ada/mill (%s) is not the passage:\n%s", stars, o.Compact())
	}
	link := find(t, o, "link", "ada/mill")
	var star Control
	for _, c := range o.Controls {
		if c.Near && c.Name == "Star" {
			star = c
		}
	}
	if p := o.Passages[0]; len(p.Refs) != 2 || p.Refs[0] != link.Ref || p.Refs[1] != star.Ref {
		t.Fatalf("the passage's refs %v, want the link %s and its row's Star:\n%s", p.Refs, link.Ref, o.Compact())
	}
	if c := o.Compact(); !strings.Contains(c, "(near: "+link.Ref+", "+star.Ref+` button "Star")`) {
		t.Fatalf("the near controls are not shown with the passage:\n%s", c)
	}
	if r, err := repos.Click(ctx, star.Ref); err != nil || !r.Changed {
		t.Fatalf("click the row's Star %s: %+v %v", star.Ref, r, err)
	}
	if got := eval[string](t, repos, `document.querySelector('a[href="/ada/mill"]').closest('li').querySelector('.star').textContent`); got != "Starred" {
		t.Fatalf("ada/mill's Star reads %q", got)
	}
}

// TestProfileSkills: a profile's skills, below a feed of 200 buttons, are
// missing from the first view but found by a query (the heading and the
// list under it), read by ReadText, and on screen after a scroll there.
func TestProfileSkills(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/skills-profile.html")
	ctx := tctx(t)
	skills := []string{"Mathematical analysis", "Algorithm design", "Technical writing", "Translation (Italian)"}
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(o.Text, skills[0]) || o.TextBelow < 2000 {
		t.Fatalf("the first view (below %d):\n%s", o.TextBelow, o.Text)
	}
	q, err := tab.Observe(ctx, ObserveOptions{Query: "skills"})
	if err != nil {
		t.Fatal(err)
	}
	pt, err := tab.ReadText(ctx, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range skills {
		if len(q.Passages) == 0 || !strings.Contains(q.Passages[0].Text, s) {
			t.Errorf("the query's passage lacks %q:\n%s", s, q.Compact())
		}
		if !strings.Contains(pt.Text, "- "+s+" · ") {
			t.Errorf("the page's text lacks %q", s)
		}
	}
	add := find(t, q, "button", "Add skill")
	if _, err := tab.Do(ctx, Action{Kind: ActScroll, Ref: add.Ref}); err != nil {
		t.Fatal(err)
	}
	o, err = tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(o.Text, "- Algorithm design · 37 endorsements") {
		t.Fatalf("with Add skill on screen the skills are not in the text:\n%s", o.Text)
	}
}

// TestRepoStarsInText: a list of repositories shows each row's name with
// its description and star count in the text, so the figures are read
// with what they belong to; the rows' buttons after them are left to the
// control list.
func TestRepoStarsInText(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/repos.html")
	o, err := tab.Observe(tctx(t), ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stars := eval[string](t, tab, `document.querySelector('.stars').textContent`)
	want := "- ada/engine\n  The engine of the analytical engine, rebuilt as a library.\n  Go " + stars + " Updated 2 days ago\n- ada/loom"
	if !strings.Contains(o.Text, want) {
		t.Fatalf("the first row with its stars (%s) is not in the text:\n%s", stars, o.Text)
	}
}

// TestRunsOfControls: on a list of 5,000 links the view writes the run of
// items as one line whose refs step with the names, every ref of it
// works, and the open plus the query for one item stays small.
func TestRunsOfControls(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "/items.html?n=5000")
	ctx := tctx(t)
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	open := o.Compact()
	m := regexp.MustCompile(`(?m)^e(\d+)…e(\d+) link "Item 1"…"Item (\d+)"$`).FindStringSubmatch(open)
	if m == nil {
		t.Fatalf("no run of items:\n%s", open)
	}
	first, _ := strconv.Atoi(m[1])
	item5 := "e" + strconv.Itoa(first+4)
	if r, err := tab.Click(ctx, item5); err != nil || !strings.HasSuffix(r.URL, "#item-5") {
		t.Fatalf("click %s, the run's fifth: %+v %v", item5, r, err)
	}
	q, err := tab.Observe(ctx, ObserveOptions{Query: "Item 4321"})
	if err != nil {
		t.Fatal(err)
	}
	query := q.Compact()
	if len(q.Controls) != 1 || q.Controls[0].Name != "Item 4321" || len(q.Passages) != 0 {
		t.Fatalf("query:\n%s", query)
	}
	t.Logf("open %d + query %d characters:\n%s%s", len(open), len(query), open, query)
	if n := len(open) + len(query); n > 450 {
		t.Fatalf("open and query cost %d characters, want at most 450", n)
	}
}

// TestReadTextLeavesHiddenOut: read_page's text leaves out every kind of
// text a person cannot see, as the observation does, and keeps all the
// visible text of a page in many styles, far below the fold included.
func TestReadTextLeavesHiddenOut(t *testing.T) {
	t.Parallel()
	ctx := tctx(t)
	pt, err := openTab(t, "/hidden.html").ReadText(ctx, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{
		"WHITE-ON-WHITE", "NEAR-WHITE", "DARK-ON-DARK", "TRANSPARENT", "SR-ONLY-TEXT", "CLIP-PATH-TEXT",
		"FONT-ZERO", "ZERO-BOX", "OFF-LEFT", "OFF-ABOVE", "OPACITY-ZERO", "VISIBILITY-HIDDEN",
		"COMMENT-HIDDEN", "DETAILS-HIDDEN", "H1-HIDDEN", "LINK-SPAN-HIDDEN", "WHITE-IN-NAME",
	} {
		if strings.Contains(pt.Text, kind) {
			t.Errorf("%s was read:\n%s", kind, pt.Text)
		}
	}
	for _, seen := range []string{"Seen paragraph one.", "Seen on dark.", "ARIA-HIDDEN-SEEN"} {
		if !strings.Contains(pt.Text, seen) {
			t.Errorf("visible %q was not read:\n%s", seen, pt.Text)
		}
	}
	hidden := openTab(t, "/hidden.html")
	for _, kind := range []string{"WHITE-ON-WHITE", "SR-ONLY-TEXT", "OFF-LEFT", "LINK-SPAN-HIDDEN"} {
		q, err := hidden.Observe(ctx, ObserveOptions{Query: kind})
		if err != nil {
			t.Fatal(err)
		}
		if len(q.Passages) > 0 {
			t.Errorf("a query found hidden %s:\n%s", kind, q.Compact())
		}
	}
	pt, err = openTab(t, "/hidden_none.html").ReadText(ctx, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 31; i++ {
		marker := fmt.Sprintf("V%02d", i)
		if i == 18 {
			marker = "v18"
		}
		if i == 29 {
			continue // an aria-label, which names a button and is no text on the page
		}
		if !strings.Contains(pt.Text, marker) {
			t.Errorf("%s was not read:\n%s", marker, pt.Text)
		}
	}
}

// TestLayerTextOfFrame: a look within a layer that is another site's
// page in an iframe (a consent manager's) has that page's text, which the
// person reads before choosing, with its controls.
func TestLayerTextOfFrame(t *testing.T) {
	t.Parallel()
	tab, ctx := framedConsent(t, "full=1&src="+crossSite()+"/consent.html", "Accept all")
	q, err := tab.Observe(ctx, ObserveOptions{Query: "Show more"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tab.Click(ctx, find(t, q, "button", "Show more").Ref)
	var ae *ActionError
	if !errors.As(err, &ae) || ae.Layer == "" {
		t.Fatalf("click under the framed dialog: %v", err)
	}
	lo, err := tab.Observe(ctx, ObserveOptions{Within: ae.Layer, TextMax: 200})
	if err != nil {
		t.Fatal(err)
	}
	find(t, lo, "button", "Reject all")
	if b := lo.Brief(); !strings.Contains(b, "text: We and our 812 partners use cookies to personalise content.") || strings.Contains(b, frameMark) {
		t.Fatalf("the layer's frame text is not in its look:\n%q", b)
	}
}
