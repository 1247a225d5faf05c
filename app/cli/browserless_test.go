package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vroom/app/internal/apptest"
	"vroom/browser"
	"vroom/internal/modeltest"
	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// browserlessDir is where make test installs browserless from npm.
const browserlessDir = "../../build/browserless"

// TestRemoteBrowserless: browserless from npm,
// run on this machine's Chromium, as two endpoints of one run — its
// ws://host:port?token= form and its http://host:port?token= form,
// resolved through /json/version — with an agent's tab in each.
func TestRemoteBrowserless(t *testing.T) {
	base := startBrowserless(t)
	s := apptest.NewSite(t)
	srv := modeltest.New(t)
	var spawns []map[string]any
	for _, n := range []string{"North", "South"} {
		task := "get a quote from the " + n + " desk"
		spawns = append(spawns, map[string]any{"task": task, "url": s.URL + "/quote.html?name=" + n})
		srv.Script("executor", apptest.QuoteExecutor(modeltest.SystemContains(task), 0, 0))
	}
	srv.Script("planner", modeltest.PlannerScript(spawns...))
	ws := "ws://" + base.host + "?token=" + base.token
	rr := startRemoteRun(t, srv, "get two quotes", "--max-agents", "2", "--browser", ws, "--browser", "http://"+base.host+"?token="+base.token)
	pool := rr.pool(t)
	if code := rr.wait(t); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s\nbrowserless:\n%s", code, rr.out.String(), rr.errb.String(), apptest.Tail(base.said(), 3000))
	}
	st := pool.Status()
	if st[0].Opened != 1 || st[1].Opened != 1 {
		t.Fatalf("tabs per endpoint: %+v", st)
	}
	if strings.Contains(rr.out.String()+rr.errb.String(), base.token) {
		t.Error("the run's output shows the token")
	}
	s.State(func(s *apptest.Site) {
		if s.Quotes != 2 {
			t.Errorf("the site served %d quotes, want 2", s.Quotes)
		}
	})
}

// browserlessServer is a running browserless: its host:port and token.
type browserlessServer struct {
	host, token string
	log         *testkit.LockedBuffer
}

// said is what browserless has printed so far.
func (bs *browserlessServer) said() string {
	return bs.log.String()
}

// startBrowserless starts browserless on a free loopback port. It runs
// Chromium through Playwright's registry, so PLAYWRIGHT_BROWSERS_PATH
// points at a directory where the revision it expects is this machine's
// Chromium; ROUTES keeps only its chromium and management routes (the
// Chrome and Edge ones refuse to load without those browsers).
func startBrowserless(t *testing.T) *browserlessServer {
	t.Helper()
	needBrowser(t)
	pkg, _ := filepath.Abs(filepath.Join(browserlessDir, "node_modules", "@browserless.io", "browserless"))
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(pkg, "build", "index.js")); serr != nil || err != nil {
		testenv.Missing(t, "browserless (make test installs it under build/browserless)")
	}
	dir := t.TempDir()
	mark := "browserless:" + dir
	env := append(os.Environ(), "PLAYWRIGHT_BROWSERS_PATH="+filepath.Join(dir, "pw"), testenv.MarkEnv+"="+mark)
	linkChromium(t, node, env)
	routes := filepath.Join(dir, "routes")
	for _, r := range []string{"chromium", "management"} {
		os.MkdirAll(routes, 0o755)
		if err := os.Symlink(filepath.Join(pkg, "build", "routes", r), filepath.Join(routes, r)); err != nil {
			t.Fatal(err)
		}
	}
	port := testkit.FreePort(t)
	var tok [8]byte
	rand.Read(tok[:])
	bs := &browserlessServer{host: "127.0.0.1:" + strconv.Itoa(port), token: hex.EncodeToString(tok[:]), log: &testkit.LockedBuffer{}}
	cmd := exec.Command(node, filepath.Join(pkg, "build", "index.js"))
	cmd.Dir = browserlessDir
	cmd.Env = append(env, "ROUTES="+routes, "HOST=127.0.0.1", "PORT="+strconv.Itoa(port), "TOKEN="+bs.token, "DEBUG=browserless*,-browserless*trace*")
	cmd.Stdout, cmd.Stderr = bs.log, bs.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		// Its browsers run in process groups of their own.
		testenv.KillMarked(mark)
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("browserless said:\n%s", apptest.Tail(bs.said(), 3000))
		}
	})
	testkit.WaitFor(t, 60*time.Second, "browserless to answer", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := browser.ResolveEndpoint(ctx, "http://"+bs.host+"?token="+bs.token, &http.Client{})
		return err == nil
	})
	return bs
}

// linkChromium puts this machine's Chromium where Playwright, under env,
// expects its own.
func linkChromium(t *testing.T, node string, env []string) {
	t.Helper()
	cmd := exec.Command(node, "-e", "console.log(require('playwright-core').chromium.executablePath())")
	cmd.Dir, cmd.Env = browserlessDir, env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("playwright-core's Chromium path: %v", err)
	}
	want := strings.TrimSpace(string(out))
	chrome, err := browser.FindChrome()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(chrome, want); err != nil {
		t.Fatal(err)
	}
}
