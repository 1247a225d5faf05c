package main

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"vroom/agents"
	"vroom/app/config"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// desktopApp is the production binary running under Xvfb with its own
// settings and data directories, in its own session so every process it
// starts can be found.
type desktopApp struct {
	cmd     *exec.Cmd
	logs    *testkit.LockedBuffer
	window  string
	dataDir string
}

// startDesktopApp builds and starts the production binary against the
// scripted model srv and waits for its window. On cleanup it sends SIGTERM
// and waits until no process of its session is left, so the test's
// temporary directories are not removed while Chromium still writes its
// profile there.
func startDesktopApp(t *testing.T, srv *modeltest.Server) *desktopApp {
	t.Helper()
	testenv.NeedDisplay(t)
	configDir, dataDir := t.TempDir(), t.TempDir()
	st := config.DefaultSettings()
	st.BaseURL, st.PlannerModel, st.ExecutorModel = srv.URL, "planner", "executor"
	if err := (config.Store{Path: filepath.Join(configDir, "settings.json")}).Save(st); err != nil {
		t.Fatal(err)
	}
	bin := buildDesktop(t)
	d := &desktopApp{logs: &testkit.LockedBuffer{}, dataDir: dataDir}
	d.cmd = exec.Command(bin)
	d.cmd.Env = append(os.Environ(), "VROOM_CONFIG_DIR="+configDir, "VROOM_DATA_DIR="+dataDir, "OPENAI_API_KEY=", "NO_AT_BRIDGE=1")
	d.cmd.Stdout, d.cmd.Stderr = d.logs, d.logs
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.stop(t) })
	testkit.WaitFor(t, 60*time.Second, "window titled Vroom", func() bool {
		out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^Vroom$").Output()
		d.window = strings.TrimSpace(strings.Split(string(out), "\n")[0])
		return d.window != ""
	})
	return d
}

// stop ends the app and every process of its session.
func (d *desktopApp) stop(t *testing.T) {
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Logf("SIGTERM: %v", err)
	}
	if err := d.cmd.Wait(); err != nil {
		t.Logf("app exit: %v", err)
	}
	// Polling /proc is the only way to see another session's processes end.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(10 * time.Second)
	for left := sessionProcesses(d.cmd.Process.Pid); len(left) > 0; left = sessionProcesses(d.cmd.Process.Pid) {
		if time.Now().After(deadline) {
			t.Errorf("processes left in the app's session 10 s after it exited: %v", left)
			if err := syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL); err != nil {
				t.Logf("kill the session: %v", err)
			}
			break
		}
		<-tick.C
	}
	if t.Failed() {
		t.Logf("app output:\n%s", d.logs.String())
		for _, r := range runLogs(t, d.dataDir) {
			t.Log(agents.FormatRecord(r, r.Time))
		}
	}
}

// xdo runs xdotool with args and fails the test if it fails.
func (d *desktopApp) xdo(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("xdotool", args...).CombinedOutput(); err != nil {
		t.Fatalf("xdotool %v: %v %s", args, err, out)
	}
}

// shoot waits until the window's picture has at least minColours colours
// and passes every check in also, then writes it to dir/name.png.
func (d *desktopApp) shoot(t *testing.T, dir, name string, minColours int, also ...func(image.Image) bool) {
	t.Helper()
	var last []byte
	testkit.WaitFor(t, 30*time.Second, name+" painted", func() bool {
		out, err := exec.Command("import", "-window", d.window, "png:-").Output()
		if err != nil {
			return false
		}
		img, err := png.Decode(bytes.NewReader(out))
		if err != nil {
			return false
		}
		last = out
		for _, f := range also {
			if !f(img) {
				return false
			}
		}
		return distinctColours(img) >= minColours
	})
	if err := os.WriteFile(filepath.Join(dir, name+".png"), last, 0o644); err != nil {
		t.Fatal(err)
	}
}

// screenshotExecutors scripts the four executors of TestDesktopScreenshots:
// three desks read until shot2 is closed, and a buyer who clicks "Place
// order" once shot1 is closed.
func screenshotExecutors(shot1, shot2 <-chan struct{}) modeltest.Step {
	var clicked atomic.Bool
	var placeRef atomic.Value // the buyer's ref for "Place order", from its first view
	return modeltest.Step{Times: -1, Func: func(r *modeltest.Request) modeltest.Reply {
		buyer := modeltest.SystemContains("mug in the cart")(r)
		if buyer && r.ToolResults() == 0 {
			placeRef.Store(modeltest.Ref(r.Text(), "button", "Place order"))
		}
		select {
		case <-shot1:
		default:
			return modeltest.Slow(500*time.Millisecond, modeltest.Call("read_page", map[string]any{}))
		}
		switch {
		case buyer && clicked.CompareAndSwap(false, true):
			return modeltest.Call("click", map[string]any{"ref": placeRef.Load()})
		case buyer:
			return modeltest.Call("done", map[string]any{"summary": "the user refused the order", "success": false})
		}
		select {
		case <-shot2:
			return modeltest.Call("done", map[string]any{"summary": "read the desk", "success": true})
		default:
			return modeltest.Slow(500*time.Millisecond, modeltest.Call("read_page", map[string]any{}))
		}
	}}
}

// hasWarningBorder reports whether the right half of img holds the
// confirmation card's warning-coloured border (#f0b35a).
func hasWarningBorder(img image.Image) bool {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Max.X / 2; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 > 225 && g>>8 > 165 && g>>8 < 195 && bl>>8 > 75 && bl>>8 < 105 {
				n++
			}
		}
	}
	return n > 300
}

// TestDesktopScreenshots drives the production binary with real X input:
// the empty room, four live tiles, and a confirmation card, each written
// as a screenshot (to VROOM_SCREENSHOT_DIR when set, for the README).
func TestDesktopScreenshots(t *testing.T) {
	dir := os.Getenv("VROOM_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	testenv.NeedDisplay(t)
	site := newDeskSite(t)
	srv := modeltest.New(t)
	var spawns []map[string]any
	for _, n := range []string{"North", "East", "South"} {
		spawns = append(spawns, map[string]any{"task": "get a quote from the " + n + " desk", "url": site.URL + "/desk/" + n})
	}
	spawns = append(spawns, map[string]any{"task": "buy the mug in the cart", "url": site.URL + "/shop.html"})
	srv.Script("planner", modeltest.PlannerScript(spawns...))
	shot1, shot2 := make(chan struct{}), make(chan struct{})
	srv.Script("executor", screenshotExecutors(shot1, shot2))
	d := startDesktopApp(t, srv)
	// The browser's first tab shows in the main view once it is ready.
	testkit.WaitFor(t, 30*time.Second, "the browser ready", func() bool { return strings.Contains(d.logs.String(), "browser ready") })
	d.shoot(t, dir, "desktop-empty", 20)

	d.xdo(t, "mousemove", "--window", d.window, "640", "22", "click", "1")
	d.xdo(t, "type", "--delay", "20", "get quotes from three desks and buy the mug")
	d.xdo(t, "key", "Return")
	testkit.WaitFor(t, 60*time.Second, "four executors working", func() bool {
		steps := map[string]int{}
		for _, r := range srv.Requests("executor") {
			for _, task := range []string{"North", "East", "South", "mug in the cart"} {
				if modeltest.SystemContains(task)(r) {
					steps[task]++
				}
			}
		}
		return len(steps) == 4 && steps["North"] >= 6 && steps["East"] >= 6 && steps["South"] >= 6 && steps["mug in the cart"] >= 6
	})
	d.shoot(t, dir, "desktop-four-tiles", 200)
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.cmd.Process.Pid)); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "VmRSS:") || strings.HasPrefix(l, "VmHWM:") {
				t.Logf("app process (Chromium and WebKit's web process excluded) with four live tiles: %s", l)
			}
		}
	}
	close(shot1)
	testkit.WaitFor(t, 30*time.Second, "the confirmation asked", func() bool { return len(runLogsMatching(t, d.dataDir, agents.LogConfirmAsked)) > 0 })
	d.shoot(t, dir, "desktop-confirmation", 200, hasWarningBorder)
	close(shot2)
}
