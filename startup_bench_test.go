package main

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// BenchmarkDesktopStartup starts the production binary under Xvfb and
// measures, from the exec: window-s, until its window is mapped; ui-s,
// until the window shows the painted UI (the omnibox, the tab sidebar: more
// than 20 colours, as TestDesktopWindow checks); browser-s, until the app
// logs its browser ready. Polled every 20 ms, so each figure is up to 20
// ms late. Medians over the iterations.
func BenchmarkDesktopStartup(b *testing.B) {
	testenv.NeedDisplay(b)
	bin := buildDesktopFor(b)
	var windows, uis, browsers []float64
	for b.Loop() {
		w, u, br := desktopStartOnce(b, bin)
		windows, uis, browsers = append(windows, w.Seconds()), append(uis, u.Seconds()), append(browsers, br.Seconds())
	}
	b.ReportMetric(testkit.Median(windows), "window-s")
	b.ReportMetric(testkit.Median(uis), "ui-s")
	b.ReportMetric(testkit.Median(browsers), "browser-s")
}

// buildDesktopFor is buildDesktop for a benchmark.
func buildDesktopFor(b *testing.B) string {
	b.Helper()
	if _, err := os.Stat("frontend/dist/index.html"); err != nil {
		b.Fatalf("frontend/dist is not built (run `make frontend`): %v", err)
	}
	bin := filepath.Join(b.TempDir(), "vroom")
	cmd := exec.Command("go", "build", "-tags", "desktop,production,webkit2_41", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// desktopStartOnce runs the app once and returns the times to its window,
// its painted UI and its browser ready.
func desktopStartOnce(b *testing.B, bin string) (window, ui, browser time.Duration) {
	var logs testkit.LockedBuffer
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "VROOM_CONFIG_DIR="+b.TempDir(), "VROOM_DATA_DIR="+b.TempDir(), "OPENAI_API_KEY=sk-bench", "NO_AT_BRIDGE=1")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		if b.Failed() {
			b.Logf("app output:\n%s", logs.String())
		}
	}()
	var id string
	testkit.WaitFor(b, time.Minute, "window", func() bool {
		out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^Vroom$").Output()
		id = strings.TrimSpace(strings.Split(string(out), "\n")[0])
		return id != ""
	})
	window = time.Since(start)
	testkit.WaitFor(b, time.Minute, "painted UI", func() bool {
		out, err := exec.Command("import", "-window", id, "png:-").Output()
		if err != nil {
			return false
		}
		img, err := png.Decode(bytes.NewReader(out))
		return err == nil && distinctColours(img) > 20
	})
	ui = time.Since(start)
	testkit.WaitFor(b, time.Minute, "browser ready", func() bool { return strings.Contains(logs.String(), "browser ready") })
	return window, ui, time.Since(start)
}
