package main

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// buildDesktop builds the production binary exactly as `make build` does.
func buildDesktop(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("frontend/dist/index.html"); err != nil {
		t.Fatalf("frontend/dist is not built (run `make frontend`): %v", err)
	}
	bin := filepath.Join(t.TempDir(), "vroom")
	cmd := exec.Command("go", "build", "-tags", "desktop,production,webkit2_41", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// sessionProcesses lists the processes in session sid, the app's own
// process tree, whoever reparented them.
func sessionProcesses(sid int) []string {
	var out []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the parenthesised command: state ppid pgrp session.
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 3 && fields[3] == strconv.Itoa(sid) && fields[0] != "Z" {
			out = append(out, strconv.Itoa(pid)+" "+s[:strings.LastIndexByte(s, ')')+1])
		}
	}
	return out
}

// blank reports whether img is one flat colour (or nearly): a window that
// never painted.
func distinctColours(img image.Image) int {
	seen := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[(r>>11)<<10|(g>>11)<<5|bl>>11] = true
		}
	}
	return len(seen)
}

// The real production binary under Xvfb: its window appears, paints, and
// SIGTERM closes it within 2 s with no process left behind.
func TestDesktopWindow(t *testing.T) {
	testenv.NeedDisplay(t)
	t.Parallel()
	bin := buildDesktop(t)

	var logs bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "VROOM_CONFIG_DIR="+t.TempDir(), "VROOM_DATA_DIR="+t.TempDir(), "OPENAI_API_KEY=", "NO_AT_BRIDGE=1")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // its own session: we can find every child
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if t.Failed() {
			t.Logf("app output:\n%s", logs.String())
		}
	})

	var window string
	testkit.WaitFor(t, 60*time.Second, "window titled Vroom", func() bool {
		out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^Vroom$").Output()
		window = strings.TrimSpace(strings.Split(string(out), "\n")[0])
		return window != ""
	})

	var shot []byte
	testkit.WaitFor(t, 30*time.Second, "window painted", func() bool {
		out, err := exec.Command("import", "-window", window, "png:-").Output()
		if err != nil {
			return false
		}
		img, err := png.Decode(bytes.NewReader(out))
		if err != nil {
			return false
		}
		shot = out
		b := img.Bounds()
		return b.Dx() >= 800 && b.Dy() >= 500 && distinctColours(img) > 20
	})
	if dir := os.Getenv("VROOM_SCREENSHOT_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, "empty.png"), shot, 0o644)
	}

	if procs := sessionProcesses(cmd.Process.Pid); len(procs) < 2 {
		t.Logf("app runs as %d process(es): %v", len(procs), procs)
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v, want status 0", err)
		}
		t.Logf("exited %v after SIGTERM", time.Since(start).Round(time.Millisecond))
	case <-ctx.Done():
		t.Fatalf("still running 2 s after SIGTERM")
	}
	// Children may take a moment to notice their parent is gone; give them
	// the rest of the 2 s.
	var left []string
	testkit.WaitFor(t, time.Until(start.Add(2*time.Second))+time.Millisecond, "no process left in the app's session", func() bool {
		left = sessionProcesses(cmd.Process.Pid)
		return len(left) == 0
	})
}
