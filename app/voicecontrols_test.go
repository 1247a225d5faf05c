package app

import (
	"context"
	"sync"
	"testing"
	"time"
)

// The mic meter sends a level per tick only when it changed, runs once
// however often it is started, and always ends on a 0: when stopped, and
// when its run ends.
func TestMicMeter(t *testing.T) {
	t.Parallel()
	var m micMeter
	tick := make(chan time.Time)
	sent := make(chan float64, 16)
	next := func() float64 {
		t.Helper()
		select {
		case l := <-sent:
			return l
		case <-time.After(5 * time.Second):
			t.Fatal("no level sent")
			return -1
		}
	}
	var mu sync.Mutex
	level := 0.0
	setLevel := func(l float64) {
		mu.Lock()
		level = l
		mu.Unlock()
	}
	getLevel := func() float64 {
		mu.Lock()
		defer mu.Unlock()
		return level
	}
	ticksStopped := make(chan struct{})
	m.start(t.Context(), tick, func() { close(ticksStopped) }, getLevel, func(l float64) { sent <- l })
	setLevel(0.5)
	tick <- time.Now()
	tick <- time.Now() // unchanged: nothing sent
	setLevel(0.25)
	tick <- time.Now()
	if a, b := next(), next(); a != 0.5 || b != 0.25 {
		t.Fatalf("levels %v, %v", a, b)
	}
	second := make(chan struct{})
	m.start(t.Context(), tick, func() { close(second) }, func() float64 { return 1 }, func(l float64) { sent <- l })
	<-second // a running meter is left alone, the new ticker stopped
	m.stop()
	<-ticksStopped
	if l := next(); l != 0 || len(sent) != 0 {
		t.Fatalf("after stop: %v, then %d more", l, len(sent))
	}

	ctx, cancel := context.WithCancel(t.Context())
	m.start(ctx, tick, func() {}, func() float64 { return 0.75 }, func(l float64) { sent <- l })
	tick <- time.Now()
	cancel()
	if a, b := next(), next(); a != 0.75 || b != 0 {
		t.Fatalf("levels %v, %v: the run's end did not end on 0", a, b)
	}
	m.stop()
	m.stop()
}
