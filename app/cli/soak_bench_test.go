package cli

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/internal/apptest"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// soakRuns is how many vroom runs BenchmarkSoak makes in a row.
const soakRuns = 40

// BenchmarkSoak is 40 vroom runs in a row, each a real process with its
// own Chromium, one data directory and one temp folder for all of them as
// a person's would be: a planner spawns an agent that gets a quote from
// the fixture desk, then ends. After each run it counts what was left:
// entries in the temp folder (temp-left/run), processes the run started
// still running (procs-left/run), run logs not ending with the run's end
// (logs-cut/run), and runs that did not exit 0 (failed/run). rss-drift-%
// is how much the vroom process's peak RSS grew from the first ten runs
// to the last ten (mean over each); peak-rss-MB and s/run are medians.
// Targets: 0, 0, 0, 0 and at most 5 %. It takes minutes, so only -bench
// runs it: go test ./app/cli -run '^$' -bench Soak -benchtime 1x.
func BenchmarkSoak(b *testing.B) {
	needBrowser(b)
	s := apptest.NewSite(b)
	srv := modeltest.New(b)
	srv.Script("planner", modeltest.PlannerScript(map[string]any{"task": "get a quote", "url": s.URL + "/quote.html"}))
	srv.Script("executor", modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		if r.ToolResults() == 0 {
			return apptest.Call("click", "ref", modeltest.Ref(r.Text(), "button", "Get quote"))
		}
		return apptest.Done("asked for a quote", true)
	}})
	for b.Loop() {
		soak(b, srv.URL)
	}
}

// soakTally is what BenchmarkSoak counts over its runs.
type soakTally struct {
	tempLeft, procsLeft, logsCut, failed int
	peaksMB, walls                       []float64
}

// soak makes soakRuns runs against the model at url and reports them.
func soak(b *testing.B, url string) {
	dir, tmp := b.TempDir(), b.TempDir()
	if len(tmp) > 40 { // Chromium's socket paths must stay short
		var err error
		if tmp, err = os.MkdirTemp("", "vroom-soak-"); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(tmp) })
	}
	mark := "soak-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	markEnv := testenv.MarkEnv + "=" + mark
	var tally soakTally
	for i := range soakRuns {
		cmd := vroomCmd(dir, "sk-test-soak", []string{"TMPDIR=" + tmp, markEnv},
			"run", "--base-url", url, "--model", "executor", "--planner-model", "planner", "get me a quote")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		began := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		peak := peakRSS(cmd.Process.Pid)
		err := cmd.Wait()
		tally.walls = append(tally.walls, time.Since(began).Seconds())
		tally.peaksMB = append(tally.peaksMB, float64(<-peak)/1024)
		if err != nil {
			tally.failed++
			b.Logf("run %d: %v\n%s", i+1, err, errb.String())
		}
		tally.tempLeft += len(leftIn(b, tmp))
		tally.procsLeft += len(leftRunning(mark))
	}
	tally.logsCut = cutLogs(b, filepath.Join(dir, "runs"))
	tally.report(b)
}

// report puts the tally in the benchmark's figures.
func (t soakTally) report(b *testing.B) {
	n := float64(soakRuns)
	b.ReportMetric(float64(t.tempLeft)/n, "temp-left/run")
	b.ReportMetric(float64(t.procsLeft)/n, "procs-left/run")
	b.ReportMetric(float64(t.logsCut)/n, "logs-cut/run")
	b.ReportMetric(float64(t.failed)/n, "failed/run")
	first, last := mean(t.peaksMB[:10]), mean(t.peaksMB[len(t.peaksMB)-10:])
	b.ReportMetric((last-first)/first*100, "rss-drift-%")
	b.ReportMetric(testkit.Median(t.peaksMB), "peak-rss-MB")
	b.ReportMetric(testkit.Median(t.walls), "s/run")
	b.Logf("peak RSS by run (MB): %.1f", t.peaksMB)
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// peakRSS samples the process pid's resident memory every 20 ms until it
// exits, then sends the highest seen, in KB.
func peakRSS(pid int) <-chan int {
	out := make(chan int, 1)
	status := filepath.Join("/proc", strconv.Itoa(pid), "status")
	go func() {
		peak := 0
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for range tick.C {
			kb, ok := rssKB(status)
			if !ok {
				break // exited (or a zombie, whose memory is gone)
			}
			peak = max(peak, kb)
		}
		out <- peak
	}()
	return out
}

// rssKB reads VmRSS from a /proc status file.
func rssKB(status string) (int, bool) {
	f, err := os.Open(status)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return kb, err == nil
		}
	}
	return 0, false
}

// leftIn lists what is in the temp folder after a run.
func leftIn(b *testing.B, dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) > 0 {
		b.Logf("left in the temp folder: %v", names)
	}
	return names
}

// leftRunning lists the processes a run started that are still running a
// few seconds after it exited (a browser's helpers may take a moment).
func leftRunning(mark string) []string {
	deadline := time.Now().Add(3 * time.Second)
	for {
		left := testenv.Marked(mark)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		<-time.After(50 * time.Millisecond) // the process table, looked at again
	}
}

// cutLogs counts the run logs in dir that do not parse or do not end with
// the run's end.
func cutLogs(b *testing.B, dir string) int {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(paths) != soakRuns {
		b.Errorf("%d run logs after %d runs", len(paths), soakRuns)
	}
	cut := 0
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		recs, err := agents.ReadRunLog(bytes.NewReader(raw))
		// The run's end is followed only by the closing of its tabs.
		tail := recs[max(0, len(recs)-3):]
		if err != nil || !slices.ContainsFunc(tail, func(r agents.LogRecord) bool { return r.Event == agents.LogRunDone }) {
			cut++
			b.Logf("%s is cut: %v", p, err)
		}
	}
	return cut
}
