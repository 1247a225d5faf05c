package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"vroom/internal/testkit"
)

func benchTab(b *testing.B, path string) *Tab {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tab, err := testBrowser.Open(ctx, site.URL+path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tab.Close(context.Background()) })
	return tab
}

// BenchmarkWalk measures the default observation of a row of N sibling
// buttons: walk-ms is the time spent in the page, observe-ms the whole call
// including CDP transport and Go decoding.
func BenchmarkWalk(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		b.Run(fmt.Sprintf("siblings=%d", n), func(b *testing.B) {
			tab := benchTab(b, fmt.Sprintf("/siblings.html?n=%d", n))
			ctx := context.Background()
			if _, err := tab.Observe(ctx, ObserveOptions{}); err != nil { // warm the world
				b.Fatal(err)
			}
			// Medians: the machine is shared, and a neighbour's build
			// stalls single iterations by tens of milliseconds.
			var walks, calls []float64
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				o, err := tab.Observe(ctx, ObserveOptions{})
				if err != nil {
					b.Fatal(err)
				}
				calls = append(calls, float64(time.Since(t0).Microseconds())/1000)
				if o.Candidates != n {
					b.Fatalf("candidates %d", o.Candidates)
				}
				walks = append(walks, o.WalkMs)
			}
			b.ReportMetric(testkit.Median(walks), "walk-ms")
			b.ReportMetric(testkit.Median(calls), "observe-ms")
		})
	}
}

// BenchmarkObservationBytes compares five full JSON observations of a form
// flow with one compact observation and four compact diffs.
func BenchmarkObservationBytes(b *testing.B) {
	var full, compact int
	for b.Loop() {
		full, compact = formFlowBytes(b)
	}
	b.ReportMetric(float64(full), "full-json-bytes")
	b.ReportMetric(float64(compact), "compact-bytes")
	b.ReportMetric(100*float64(compact)/float64(full), "compact-pct")
}

func formFlowBytes(b *testing.B) (full, compact int) {
	tab := benchTab(b, "/form.html")
	defer tab.Close(context.Background())
	ctx := context.Background()
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		b.Fatal(err)
	}
	js, _ := json.Marshal(o)
	full += len(js)
	compact += len(o.Compact())
	ref := func(role, name string) string {
		for _, c := range o.Controls {
			if c.Role == role && strings.Contains(c.Name, name) {
				return c.Ref
			}
		}
		b.Fatalf("no %s %s", role, name)
		return ""
	}
	steps := []Action{
		{Kind: ActType, Ref: ref("textbox", "Email"), Text: "ada@example.com"},
		{Kind: ActType, Ref: ref("textbox", "Full name"), Text: "Ada Lovelace"},
		{Kind: ActSelect, Ref: ref("combobox", "Plan"), Option: "Pro"},
		{Kind: ActClick, Ref: ref("checkbox", "terms")},
	}
	since := o.Version
	for _, a := range steps {
		if _, err := tab.Do(ctx, a); err != nil {
			b.Fatal(err)
		}
		d, err := tab.Changes(ctx, since, ObserveOptions{})
		if err != nil {
			b.Fatal(err)
		}
		since = d.Version
		compact += len(d.Compact())
		// The full alternative: the whole observation again, as JSON.
		fo, err := tab.Observe(ctx, ObserveOptions{})
		if err != nil {
			b.Fatal(err)
		}
		js, _ := json.Marshal(fo)
		full += len(js)
		since = fo.Version
	}
	return full, compact
}

// BenchmarkClick is a verified click (checks, trusted input, settle,
// verdict) on a local page.
func BenchmarkClick(b *testing.B) {
	tab := benchTab(b, "/counter.html")
	ctx := context.Background()
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ref := o.Controls[0].Ref
	var ms []float64
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		r, err := tab.Click(ctx, ref)
		if err != nil {
			b.Fatal(err)
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
		if !r.Changed {
			b.Fatal("click had no effect")
		}
	}
	b.ReportMetric(testkit.Median(ms), "ms/click")
}

// BenchmarkScreencast streams an animated page to one viewer, then four
// tabs at once, and reports frames per second per tab and the CPU that
// Chromium and this process spent per streaming tab.
func BenchmarkScreencast(b *testing.B) {
	const window = 3 * time.Second
	var fps1, fps4, cpu4 float64
	var cpu1 float64
	for b.Loop() {
		one := benchTab(b, "/anim.html")
		fps1, cpu1 = streamFor(b, []*Tab{one}, window)
		one.Close(context.Background())
		tabs := []*Tab{benchTab(b, "/anim.html"), benchTab(b, "/anim.html"), benchTab(b, "/anim.html"), benchTab(b, "/anim.html")}
		fps4, cpu4 = streamFor(b, tabs, window)
		for _, t := range tabs {
			t.Close(context.Background())
		}
	}
	b.ReportMetric(cpu1, "cpu-pct-1tab")
	b.ReportMetric(fps1, "fps-1tab")
	b.ReportMetric(fps4, "fps-4tabs")
	b.ReportMetric(cpu4, "cpu-pct-per-tab")
}

func streamFor(b *testing.B, tabs []*Tab, d time.Duration) (fpsPerTab, cpuPerTab float64) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var frames atomic.Int64
	var wg sync.WaitGroup
	cpu0 := cpuTicks()
	start := time.Now()
	for _, t := range tabs {
		ch, err := t.Screencast(ctx, ScreencastOptions{Quality: 70})
		if err != nil {
			b.Fatal(err)
		}
		wg.Go(func() {
			for range ch {
				frames.Add(1)
			}
		})
	}
	wg.Wait()
	el := time.Since(start).Seconds()
	used := float64(cpuTicks()-cpu0) / 100 // USER_HZ
	return float64(frames.Load()) / el / float64(len(tabs)), 100 * used / el / float64(len(tabs))
}

// cpuTicks sums user and system time of this process and of every
// Chromium process of the test browser.
func cpuTicks() int64 {
	root := chromedp.FromContext(testBrowser.run.ctx).Browser.Process()
	parent := map[int]int{}
	ticks := map[int]int64{}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range dirs {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := string(raw)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+2:])
		if len(fields) < 13 {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		ppid, _ := strconv.Atoi(fields[1])
		ut, _ := strconv.ParseInt(fields[11], 10, 64)
		st, _ := strconv.ParseInt(fields[12], 10, 64)
		parent[pid], ticks[pid] = ppid, ut+st
	}
	in := func(pid int) bool {
		for p := pid; p > 1; p = parent[p] {
			if root != nil && p == root.Pid {
				return true
			}
		}
		return false
	}
	total := ticks[os.Getpid()]
	for pid, t := range ticks {
		if in(pid) {
			total += t
		}
	}
	return total
}

// BenchmarkType is a verified type into a text field (checks, focus by a
// trusted click, text insertion, settle, verdict) on the form fixture: the
// bulk of an executor's step on a form.
func BenchmarkType(b *testing.B) {
	tab := benchTab(b, "/form.html")
	ctx := context.Background()
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var ref string
	for _, c := range o.Controls {
		if c.Role == "textbox" && ref == "" {
			ref = c.Ref
		}
	}
	if ref == "" {
		b.Fatal("no text field on the form fixture")
	}
	var ms []float64
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		r, err := tab.Type(ctx, ref, fmt.Sprintf("value %d", i), false)
		if err != nil {
			b.Fatal(err)
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
		if !r.Changed {
			b.Fatal("typing had no effect")
		}
	}
	b.ReportMetric(testkit.Median(ms), "ms/type")
}

// BenchmarkOpenTab measures opening a tab at a local page until its load,
// by each route Chromium offers (the package doc, "Opening a tab"):
// a new window or a tab in the existing one; the URL in
// Target.createTarget or about:blank then a navigation (light, or the
// checked Navigate action); the window the browser created ahead (Open's
// route), timed once it is attached, as an Open that does not follow
// another at once finds it, and back to back; and a prewarmed blank tab,
// where only the navigation is timed. ms/open is the median.
func BenchmarkOpenTab(b *testing.B) {
	routes := []openWay{
		{"window+navigate-action", openRoute{window: true, fullAct: true}, false, false},
		{"window+url", openRoute{window: true, urlInCreate: true}, false, false},
		{"window+navigate", openRoute{window: true}, false, false},
		{"spare-window+navigate", openRoute{window: true, spare: true}, false, false},
		{"spare-window+navigate/back-to-back", openRoute{window: true, spare: true}, false, true},
		{"tab+navigate-action", openRoute{fullAct: true}, false, false},
		{"tab+navigate", openRoute{}, false, false},
		{"tab+url", openRoute{urlInCreate: true}, false, false},
		{"prewarmed+navigate", openRoute{}, true, false},
	}
	for _, w := range routes {
		b.Run(w.name, func(b *testing.B) {
			ctx := context.Background()
			var ms []float64
			for b.Loop() {
				ms = append(ms, openOnce(b, ctx, w))
			}
			b.ReportMetric(testkit.Median(ms), "ms/open")
		})
	}
}

// openWay is one of BenchmarkOpenTab's routes.
type openWay struct {
	name    string
	r       openRoute
	prewarm bool // a blank tab opened beforehand, untimed, then navigated
	// backToBack: the open follows the last at once, without waiting for
	// the window the browser creates ahead to be ready.
	backToBack bool
}

// openOnce opens one tab the way w says and closes it; it returns the
// time to the page's load in ms.
func openOnce(b *testing.B, ctx context.Context, w openWay) float64 {
	u := site.URL + "/form.html"
	var tab *Tab
	var took time.Duration
	if w.prewarm {
		t, err := testBrowser.Open(ctx, "")
		if err != nil {
			b.Fatal(err)
		}
		// A run prewarms while its planner thinks: the window the
		// browser creates next is ready before the first spawn.
		spareReady(b)
		t0 := time.Now()
		if err := t.Load(ctx, u); err != nil {
			b.Fatal(err)
		}
		took, tab = time.Since(t0), t
	} else {
		if w.r.spare && !w.backToBack {
			spareReady(b)
		}
		t0 := time.Now()
		t, err := testBrowser.open(ctx, u, w.r)
		if err != nil {
			b.Fatal(err)
		}
		took, tab = time.Since(t0), t
	}
	if got := tab.Info().URL; !strings.HasSuffix(got, "/form.html") {
		b.Fatalf("opened %q", got)
	}
	if err := tab.Close(ctx); err != nil {
		b.Fatal(err)
	}
	return float64(took.Microseconds()) / 1000
}

// spareReady waits for the window the browser creates ahead to be
// attached, as an Open finds it when it does not follow another at once.
func spareReady(b *testing.B) {
	w := &testBrowser.spare
	w.mu.Lock()
	making := w.making
	w.mu.Unlock()
	if making != nil {
		<-making
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tab == nil {
		b.Fatal("no window was created ahead")
	}
}

// BenchmarkSelect is a verified choice in a native select (checks, the
// value set with the page's input and change events, settle, verdict) on
// the form fixture, alternating between two options so each has an effect.
func BenchmarkSelect(b *testing.B) {
	tab := benchTab(b, "/form.html")
	ctx := context.Background()
	o, err := tab.Observe(ctx, ObserveOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var ref string
	for _, c := range o.Controls {
		if c.Role == "combobox" && ref == "" {
			ref = c.Ref
		}
	}
	if ref == "" {
		b.Fatal("no select on the form fixture")
	}
	options := []string{"Pro", "Team"}
	var ms []float64
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		r, err := tab.Select(ctx, ref, options[i%2])
		if err != nil {
			b.Fatal(err)
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
		if !r.Changed {
			b.Fatal("choosing had no effect")
		}
	}
	b.ReportMetric(testkit.Median(ms), "ms/select")
}

// BenchmarkNavigate is an open in place as an MCP client's navigate does
// it: the verified navigation to a local page until its load, then the
// observation of the new page. ms/open is the median of the two together.
func BenchmarkNavigate(b *testing.B) {
	tab := benchTab(b, "/counter.html")
	ctx := context.Background()
	pages := []string{"/form.html", "/counter.html"}
	var ms []float64
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		r, err := tab.Navigate(ctx, site.URL+pages[i%2])
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tab.Observe(ctx, ObserveOptions{}); err != nil {
			b.Fatal(err)
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
		if !r.Navigated {
			b.Fatal("navigate did not navigate")
		}
	}
	b.ReportMetric(testkit.Median(ms), "ms/open")
}
