package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"vroom/internal/testkit"
)

// feedFixtures serves the infinite feed's pages: twenty posts each, after
// the delay the page asks for (ms), as a busy API answers.
func feedFixtures(mux *http.ServeMux) {
	mux.HandleFunc("/api/feed", func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		ms, _ := strconv.Atoi(r.URL.Query().Get("delay"))
		delay(r, time.Duration(ms)*time.Millisecond)
		type post struct {
			Title string `json:"title"`
			Body  string `json:"body"`
		}
		var posts []post
		for i := range 20 {
			n := page*20 + i + 1
			posts = append(posts, post{fmt.Sprintf("Post %d", n), fmt.Sprintf("The text of post %d.", n)})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(posts)
	})
}

// feedPosts is how many posts the feed page shows.
func feedPosts(t *testing.T, tab *Tab) int {
	t.Helper()
	return eval[int](t, tab, `document.querySelectorAll('article').length`)
}

// TestScrollSettlesOnThePage: a scroll costs what the page takes. On a
// page that loads nothing it ends with the scroll (the position read
// after the result is the one it reported, and stays); on a feed, the
// scroll that brings its end near waits for the next page of posts, and
// so does one made while the first page is still loading.
func TestScrollSettlesOnThePage(t *testing.T) {
	t.Parallel()
	ctx := tctx(t)
	tab := openTab(t, "/article.html")
	for i := range 3 {
		r, err := tab.Do(ctx, Action{Kind: ActScroll, Direction: "down", Amount: 300})
		if err != nil || !slices.Contains(r.Effects, "scroll") {
			t.Fatalf("scroll %d: %v %v", i, r, err)
		}
		y := eval[float64](t, tab, `scrollY`)
		if later := eval[float64](t, tab, `new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(() => res(scrollY))))`); later != y || y != float64(300*(i+1)) {
			t.Fatalf("scroll %d: at %v after its result, %v two frames later, want %d", i, y, later, 300*(i+1))
		}
		t.Logf("scroll %d on a page that loads nothing: %v", i, r.Took)
	}

	feed := openTab(t, "/feed.html?delay=600")
	// While the first page of posts is on its way, and the scroll has
	// nowhere to go until it comes.
	testkit.WaitFor(t, 10*time.Second, "the feed's first fetch", func() bool { return eval[bool](t, feed, `loading`) })
	r, err := feed.Do(ctx, Action{Kind: ActScroll, Direction: "down"})
	if err != nil || !r.Changed || feedPosts(t, feed) != 20 {
		t.Fatalf("a scroll while the feed loads: %v %v, %d posts", r, err, feedPosts(t, feed))
	}
	for i := 0; feedPosts(t, feed) == 20; i++ {
		if i == 10 {
			t.Fatal("ten scrolls and the feed never loaded more")
		}
		n := feedPosts(t, feed)
		r, err := feed.Do(ctx, Action{Kind: ActScroll, Direction: "down"})
		if err != nil || !r.Changed {
			t.Fatalf("scroll: %v %v", r, err)
		}
		if got := feedPosts(t, feed); got > n && (!slices.Contains(r.Effects, "dom") || r.Took < 500*time.Millisecond) {
			t.Fatalf("the scroll that loaded posts %d-%d returned after %v with effects %v", n+1, got, r.Took, r.Effects)
		}
	}
}

// TestEndOnAGrowingFeed: End and PageDown keep moving on a feed that
// loads more each time its end comes near: every press has an effect,
// the pages of posts come in as the presses go, and End's smooth scroll
// has ended when it returns (the position does not move after it).
func TestEndOnAGrowingFeed(t *testing.T) {
	t.Parallel()
	ctx := tctx(t)
	tab := openTab(t, "/feed.html?delay=500")
	if _, err := tab.Wait(ctx, WaitFor{Text: "Post 20"}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	start := feedPosts(t, tab)
	for i := range 6 {
		n := feedPosts(t, tab)
		r, err := tab.Press(ctx, "End")
		if err != nil || !r.Changed {
			t.Fatalf("End %d (%d posts): %v %v", i, n, r, err)
		}
		t.Logf("End %d: %d posts, then %d, in %v: %s", i, n, feedPosts(t, tab), r.Took, r)
		y := eval[float64](t, tab, `scrollY`)
		if later := eval[float64](t, tab, `new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(() => res(scrollY))))`); later != y {
			t.Fatalf("End %d: the page was still scrolling after the result (%v, then %v)", i, y, later)
		}
	}
	// Each End brings the next page's fetch on; the press that finds the
	// end while it is on its way waits for it. (Which press waits for a
	// page depends on when the feed's observer fires, so only the sum is
	// judged: returning before the feed answers, six presses took one
	// page.)
	if got := feedPosts(t, tab); got < start+4*20 {
		t.Errorf("six Ends took the feed from %d to %d posts, want at least four more pages", start, got)
	}
	// A PageDown that lands at the very end while the next page is being
	// appended may find nowhere to go yet and says so; a careful model
	// presses again. Most presses move, and the feed keeps growing.
	before, still := feedPosts(t, tab), 0
	for i := range 8 {
		r, err := tab.Press(ctx, "PageDown")
		if err != nil {
			t.Fatalf("PageDown %d: %v", i, err)
		}
		if !r.Changed {
			t.Logf("PageDown %d: %s", i, r)
			still++
		}
	}
	if still > 2 {
		t.Errorf("%d of eight PageDowns had no effect", still)
	}
	if feedPosts(t, tab) <= before {
		t.Errorf("eight PageDowns loaded nothing more (%d posts)", before)
	}
}

// BenchmarkScroll is a scroll's cost where nothing loads (ms/scroll:
// down and up in turn on a long article), and on a feed whose every
// End loads the next page from a server answering in 300 ms
// (ms/end-load).
func BenchmarkScroll(b *testing.B) {
	b.Run("static", func(b *testing.B) {
		tab := benchTab(b, "/article.html")
		ctx := context.Background()
		var ms []float64
		dir := []string{"down", "up"}
		for i := 0; b.Loop(); i++ {
			t0 := time.Now()
			r, err := tab.Do(ctx, Action{Kind: ActScroll, Direction: dir[i%2], Amount: 300})
			if err != nil || !r.Changed {
				b.Fatalf("scroll: %v %v", r, err)
			}
			ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
		}
		b.ReportMetric(testkit.Median(ms), "ms/scroll")
	})
	b.Run("feed", func(b *testing.B) {
		tab := benchTab(b, "/feed.html?delay=300")
		ctx := context.Background()
		if _, err := tab.Wait(ctx, WaitFor{Text: "Post 20"}, 10*time.Second); err != nil {
			b.Fatal(err)
		}
		var ms []float64
		for b.Loop() {
			t0 := time.Now()
			r, err := tab.Press(ctx, "End")
			if err != nil || !r.Changed {
				b.Fatalf("End: %v %v", r, err)
			}
			ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
		}
		b.ReportMetric(testkit.Median(ms), "ms/end-load")
	})
}
