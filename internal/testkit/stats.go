package testkit

import "slices"

// Median is the middle of xs (the upper middle for an even count; 0 for
// none), for a benchmark's per-iteration samples, where one slow outlier on
// a loaded machine should not move the reported figure. xs is not changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
