package browser

import (
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/profiler"
)

// TestWalkProfile is the in-page CPU profile of the walk that showed where
// its time went (BENCHMARKS.md records what it found): the CDP Profiler over
// 20 observations of 1,000 and 5,000 sibling buttons, self time per function
// and the hottest lines. It runs only when asked:
//
//	WALK_PROFILE=1 build/testenv.sh go test ./browser/ -run TestWalkProfile -v
func TestWalkProfile(t *testing.T) {
	if os.Getenv("WALK_PROFILE") == "" {
		t.Skip("WALK_PROFILE unset")
	}
	for _, n := range []int{1000, 5000} {
		tab := openTab(t, fmt.Sprintf("/siblings.html?n=%d", n))
		ctx := tctx(t)
		if _, err := tab.Observe(ctx, ObserveOptions{}); err != nil {
			t.Fatal(err)
		}
		tg := tab.target()
		must := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		_, err := cdp.Call(ctx, tg, profiler.Enable, cdp.Empty{})
		must(err)
		_, err = cdp.Call(ctx, tg, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 50})
		must(err)
		_, err = cdp.Call(ctx, tg, profiler.Start, cdp.Empty{})
		must(err)
		var walk float64
		const runs = 20
		for i := 0; i < runs; i++ {
			o, err := tab.Observe(ctx, ObserveOptions{})
			must(err)
			walk += o.WalkMs
		}
		res, err := cdp.Call(ctx, tg, profiler.Stop, cdp.Empty{})
		must(err)
		p := res.Profile
		self := map[string]float64{}
		byID := map[int64]*profiler.ProfileNode{}
		for _, nd := range p.Nodes {
			byID[nd.ID] = nd
		}
		for i, id := range p.Samples {
			nd := byID[id]
			key := fmt.Sprintf("%s:%d", nd.CallFrame.FunctionName, nd.CallFrame.LineNumber+1)
			self[key] += float64(p.TimeDeltas[i]) / 1000
		}
		type kv struct {
			k string
			v float64
		}
		var kvs []kv
		for k, v := range self {
			kvs = append(kvs, kv{k, v})
		}
		sort.Slice(kvs, func(i, j int) bool { return kvs[i].v > kvs[j].v })
		t.Logf("n=%d mean walk %.2f ms", n, walk/runs)
		for i, e := range kvs {
			if i > 18 {
				break
			}
			t.Logf("  %-40s %7.2f ms/observe", e.k, e.v/runs)
		}
		// The hottest lines of the functions sampled most.
		for _, nd := range p.Nodes {
			if nd.HitCount > 20 && len(nd.PositionTicks) > 0 {
				s := ""
				for _, pt := range nd.PositionTicks {
					if pt.Ticks > 10 {
						s += fmt.Sprintf(" L%d:%d", pt.Line, pt.Ticks)
					}
				}
				t.Logf("  ticks %s:%s", nd.CallFrame.FunctionName, s)
			}
		}
	}
}
