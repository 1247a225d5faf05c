package main

import (
	"cmp"
	"fmt"
	"image"
	"slices"
	"strings"
)

// describe sums a window picture up in words: its commonest colours (to
// the nearest 16 per channel), each with its share of the pixels and the
// box they span. A CI log keeps no picture, and this tells a page never
// loaded (one background colour) from a frame not drawn (the page's
// background where its colours should be) from a menu in the way.
func describe(img image.Image) string {
	type patch struct {
		n   int
		box image.Rectangle
	}
	patches := map[[3]uint8]*patch{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			k := [3]uint8{uint8(r>>12) << 4, uint8(g>>12) << 4, uint8(bl>>12) << 4}
			p := patches[k]
			if p == nil {
				p = &patch{box: image.Rect(x, y, x+1, y+1)}
				patches[k] = p
			}
			p.n++
			p.box = p.box.Union(image.Rect(x, y, x+1, y+1))
		}
	}
	keys := make([][3]uint8, 0, len(patches))
	for k := range patches {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [3]uint8) int { return cmp.Compare(patches[b].n, patches[a].n) })
	total := b.Dx() * b.Dy()
	var out []string
	for _, k := range keys[:min(len(keys), 8)] {
		p := patches[k]
		out = append(out, fmt.Sprintf("#%02x%02x%02x %.1f%% in %v", k[0], k[1], k[2], 100*float64(p.n)/float64(total), p.box))
	}
	return fmt.Sprintf("%v, %d colours: %s", b.Size(), len(patches), strings.Join(out, "; "))
}
