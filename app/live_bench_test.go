package app

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkLiveTiles measures what a grid of live tiles costs through the
// loopback frame stream, as the UI reads it: frames per second per tile,
// the delay from Chromium capturing a frame to the reader having all its
// bytes (p50, p95), and the CPU per second of streaming of this process and
// of Chromium. Tiles are JPEG q50 at today's fixed 640x400 and at the sizes
// the grid asks for now; the page animates every frame.
func BenchmarkLiveTiles(b *testing.B) {
	needBrowser(b)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, animatedPage)
	}))
	defer site.Close()
	live, err := newLiveServer(testBrowser.Tab)
	if err != nil {
		b.Fatal(err)
	}
	defer live.Close()
	// Today's fixed 640x400 against the sizes the grid now asks for in a
	// 1280x800 window: one agent's tile, and four side by side.
	for _, c := range []struct{ n, w, h int }{{1, 640, 400}, {1, 928, 608}, {4, 640, 400}, {4, 512, 320}} {
		n := c.n
		b.Run(fmt.Sprintf("tiles=%d/%dx%d", n, c.w, c.h), func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var ids []string
			for range n {
				tab, err := testBrowser.Open(ctx, site.URL)
				if err != nil {
					b.Fatal(err)
				}
				defer tab.Close(context.Background())
				ids = append(ids, tab.ID())
			}
			st := &tileStats{}
			// Each iteration is one frame received, on any tile.
			got := make(chan struct{}, 1024)
			var wg sync.WaitGroup
			for _, id := range ids {
				req, _ := http.NewRequestWithContext(ctx, "GET", live.URL()+fmt.Sprintf("/live/%s?w=%d&h=%d&q=50&token=%s", id, c.w, c.h, live.token), nil)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					st.read(resp.Body, got)
				}()
			}
			// Warm up: the first frames of each tile are the load.
			for range 4 * n {
				<-got
			}
			st.reset()
			cpu0, chrome0 := cpuTime(), childrenCPU()
			start := time.Now()
			b.ResetTimer()
			for range b.N {
				<-got
			}
			b.StopTimer()
			took := time.Since(start)
			cpu, chrome := cpuTime()-cpu0, childrenCPU()-chrome0
			cancel()
			wg.Wait()
			st.report(b, took, n)
			b.ReportMetric(cpu.Seconds()/took.Seconds()*100, "app-cpu-%")
			b.ReportMetric(chrome.Seconds()/took.Seconds()*100, "chromium-cpu-%")
		})
	}
}

// tileStats gathers the frames the tiles' readers received.
type tileStats struct {
	mu     sync.Mutex
	delays []time.Duration // capture to all bytes read, per frame
	frames int
}

// read reads one tile's frame stream until it ends, recording each frame
// and telling got (without blocking) that one arrived.
func (st *tileStats) read(body io.ReadCloser, got chan<- struct{}) {
	defer body.Close()
	r := bufio.NewReader(body)
	for {
		h, _, err := readFrame(r)
		if err != nil {
			return
		}
		d := time.Since(time.UnixMilli(h.At))
		st.mu.Lock()
		st.delays = append(st.delays, d)
		st.frames++
		st.mu.Unlock()
		select {
		case got <- struct{}{}:
		default:
		}
	}
}

func (st *tileStats) reset() {
	st.mu.Lock()
	st.delays, st.frames = st.delays[:0], 0
	st.mu.Unlock()
}

// report gives the frame rate per tile and the delays' p50 and p95.
func (st *tileStats) report(b *testing.B, took time.Duration, tiles int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	slices.Sort(st.delays)
	if len(st.delays) == 0 {
		b.Fatal("no frames")
	}
	b.ReportMetric(float64(st.frames)/took.Seconds()/float64(tiles), "fps/tile")
	b.ReportMetric(float64(st.delays[len(st.delays)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(st.delays[len(st.delays)*95/100].Microseconds())/1000, "p95-ms")
}

// childrenCPU is the user and system CPU time so far of every process
// descended from this one: the test browser, its renderers and GPU
// process, where frames are rendered and encoded.
func childrenCPU() time.Duration {
	parent := map[int]int{}
	ticks := map[int]int64{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		// After the parenthesised command: state ppid ... utime (14) stime (15).
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 13 {
			continue
		}
		parent[pid], _ = strconv.Atoi(f[1])
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		ticks[pid] = ut + st
	}
	self := os.Getpid()
	var total int64
	for pid, t := range ticks {
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == self {
				total += t
				break
			}
		}
	}
	return time.Duration(total) * time.Second / 100 // USER_HZ
}

// cpuTime is this process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
