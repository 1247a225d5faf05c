package testenv

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Remote is a Chromium started as a remote browser farm would run one: its
// own process group, a DevTools port on loopback, a throwaway profile.
type Remote struct {
	// HTTP is http://127.0.0.1:PORT (resolved through /json/version), WS
	// the browser's own ws://127.0.0.1:PORT/devtools/browser/ID.
	HTTP, WS string
	cmd      *exec.Cmd
}

// RemoteChromium starts the Chromium at path with
// --remote-debugging-port=0 and reads the port it chose from
// DevToolsActivePort in its profile. The test's cleanup kills it.
func RemoteChromium(tb testing.TB, path string) *Remote {
	tb.Helper()
	dir := tb.TempDir()
	cmd := exec.Command(path, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--no-first-run", "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
		"--user-data-dir="+dir, "about:blank")
	// Its own process group, so a kill takes its helpers (renderers,
	// zygote) with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	r := &Remote{cmd: cmd}
	tb.Cleanup(func() {
		r.Kill()
		<-exited
	})
	// Chromium writes the file once it listens; nothing signals it.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
		if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); err == nil && len(lines) >= 2 {
			r.HTTP = "http://127.0.0.1:" + lines[0]
			r.WS = "ws://127.0.0.1:" + lines[0] + lines[1]
			return r
		}
		select {
		case <-exited:
			tb.Fatalf("Chromium exited at start:\n%s", errb.String())
		case <-deadline:
			tb.Fatalf("Chromium wrote no DevToolsActivePort in 30 s:\n%s", errb.String())
		case <-tick.C:
		}
	}
}

// Kill SIGKILLs the browser and its helpers, as a crash or an OOM kill
// would.
func (r *Remote) Kill() {
	syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL) // already gone is fine
}
