package testkit_test

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"vroom/internal/testkit"
)

func TestLockedBufferConcurrentWrites(t *testing.T) {
	t.Parallel()
	var b testkit.LockedBuffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 100 {
				fmt.Fprintf(&b, "%d\n", i)
				_ = b.String() // a reader while others write: the race detector's case
			}
		})
	}
	wg.Wait()
	if n := strings.Count(b.String(), "\n"); n != 800 {
		t.Fatalf("%d lines, want 800", n)
	}
	got := b.Bytes()
	b.Write([]byte("more"))
	if strings.HasSuffix(string(got), "more") {
		t.Fatal("Bytes shares the buffer's memory with later writes")
	}
}

// fatalTB records a Fatalf instead of ending the test, so WaitFor's
// failure can be seen.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) { f.msg = fmt.Sprintf(format, args...) }

func TestWaitForHolds(t *testing.T) {
	t.Parallel()
	at := time.Now().Add(50 * time.Millisecond)
	looks := 0
	testkit.WaitFor(t, 5*time.Second, "the time", func() bool { looks++; return time.Now().After(at) })
	if looks < 2 {
		t.Fatalf("looked %d times at a condition that was false at first", looks)
	}
}

func TestWaitForTimesOut(t *testing.T) {
	t.Parallel()
	f := &fatalTB{TB: t}
	start := time.Now()
	testkit.WaitFor(f, 100*time.Millisecond, "never", func() bool { return false })
	if el := time.Since(start); el < 100*time.Millisecond || el > 2*time.Second {
		t.Errorf("gave up after %v, want 100 ms", el)
	}
	if !strings.Contains(f.msg, "never") || !strings.Contains(f.msg, "100ms") {
		t.Errorf("failure %q does not say what it waited for and how long", f.msg)
	}
}

// Within says whether the condition held in time, without failing.
func TestWithin(t *testing.T) {
	t.Parallel()
	at := time.Now().Add(30 * time.Millisecond)
	if !testkit.Within(5*time.Second, func() bool { return time.Now().After(at) }) {
		t.Error("a condition that came to hold was reported as not holding")
	}
	if testkit.Within(50*time.Millisecond, func() bool { return false }) {
		t.Error("a condition that never held was reported as holding")
	}
}

// A slow condition is looked at less often: the gap is at least the look.
func TestWaitForSlowCondition(t *testing.T) {
	t.Parallel()
	f := &fatalTB{TB: t}
	looks := 0
	testkit.WaitFor(f, 300*time.Millisecond, "slow", func() bool {
		looks++
		<-time.After(50 * time.Millisecond) // the cost of a look, not a wait for something
		return false
	})
	if looks > 4 {
		t.Errorf("a 50 ms condition was looked at %d times in 300 ms", looks)
	}
}

func TestMedian(t *testing.T) {
	t.Parallel()
	xs := []float64{5, 1, 4, 2, 3}
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{7}, 7}, {xs, 3}, {[]float64{4, 1, 3, 2}, 3}} {
		if got := testkit.Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if xs[0] != 5 {
		t.Error("Median sorted its argument")
	}
}

func TestFreePort(t *testing.T) {
	t.Parallel()
	p := testkit.FreePort(t)
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
	if err != nil {
		t.Fatalf("port %d is not free: %v", p, err)
	}
	l.Close()
}
