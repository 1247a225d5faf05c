package runner

import (
	"testing"
)

// BenchmarkFlowCalls measures what a task costs the person in model calls
// (their cost and their wait): the executor's calls per fixture task with
// the careful scripted model of flows_test.go. BENCHMARKS.md holds the
// numbers beside each task's scripted minimum.
func BenchmarkFlowCalls(b *testing.B) {
	flows := []struct {
		name string
		run  func(tb testing.TB, s *flowSite) *flowTally
	}{
		{"skills", skillsFlow},
		{"longrow", longRowFlow},
		{"checkout", func(tb testing.TB, s *flowSite) *flowTally { f, _ := checkoutFlow(tb, s); return f }},
		{"stepper", stepperFlow},
		{"popup", func(tb testing.TB, _ *flowSite) *flowTally { return coveredFlow(tb, "/popup.html", "No thanks") }},
		{"consent", func(tb testing.TB, _ *flowSite) *flowTally { return coveredFlow(tb, "/consent.html", "Accept all") }},
		// What a page asks of the browser, each on a fixture site of
		// its own (the flow site is unused).
		{"cv-upload", func(tb testing.TB, _ *flowSite) *flowTally { f, _, _ := applyFlow(tb, false); return f }},
		{"upload-refused", func(tb testing.TB, _ *flowSite) *flowTally { f, _, _ := applyFlow(tb, true); return f }},
		{"invoice-download", func(tb testing.TB, _ *flowSite) *flowTally { f, _, _ := invoiceFlow(tb); return f }},
		{"board-html5", func(tb testing.TB, _ *flowSite) *flowTally {
			f, _ := boardFlow(tb, "/board", "Fix the login bug")
			return f
		}},
		{"board-pointer", func(tb testing.TB, _ *flowSite) *flowTally {
			f, _ := boardFlow(tb, "/sortable", "Book flights")
			return f
		}},
		{"hover-menu", func(tb testing.TB, _ *flowSite) *flowTally { return hoverMenuFlow(tb) }},
		{"popup-signin", func(tb testing.TB, _ *flowSite) *flowTally { f, _ := popupSignInFlow(tb); return f }},
		{"confirm", func(tb testing.TB, _ *flowSite) *flowTally {
			f, _ := dialogFlow(tb, "Archive", map[string]any{"accept": true})
			return f
		}},
		{"prompt", func(tb testing.TB, _ *flowSite) *flowTally {
			f, _ := dialogFlow(tb, "Rename", map[string]any{"accept": true, "text": "Artemis"})
			return f
		}},
		{"beforeunload", func(tb testing.TB, _ *flowSite) *flowTally { return beforeUnloadFlow(tb) }},
		{"alert-loop", func(tb testing.TB, _ *flowSite) *flowTally { return alertLoopFlow(tb) }},
		{"canvas-sheet", func(tb testing.TB, _ *flowSite) *flowTally { return canvasFlow(tb) }},
		{"custom-list", func(tb testing.TB, _ *flowSite) *flowTally { f, _ := listFlow(tb, "/signup-button"); return f }},
		{"custom-list-combobox", func(tb testing.TB, _ *flowSite) *flowTally { f, _ := listFlow(tb, "/signup"); return f }},
		// The poem's figure is the four agents' calls together.
		{"poem", func(tb testing.TB, _ *flowSite) *flowTally { f, _, _ := poemFlow(tb); return f }},
	}
	for _, fl := range flows {
		b.Run(fl.name, func(b *testing.B) {
			calls := 0
			for i := 0; i < b.N; i++ {
				// A fresh site each time: the skills flow adds to the
				// profile, the checkout to the orders.
				calls += fl.run(b, newFlowSite(b)).total()
			}
			b.ReportMetric(float64(calls)/float64(b.N), "calls/task")
		})
	}
}

// coveredFlow tracks a parcel on page of a fresh popup site, whose field
// something covers, closed with closeWith (popupModel).
func coveredFlow(tb testing.TB, page, closeWith string) *flowTally {
	s := newPopupSite(tb)
	f := &flowTally{}
	runFlow(tb, newHarness(tb, nil), "Track parcel AB123", s.URL+page, f, popupModel(s, closeWith))
	return f
}
