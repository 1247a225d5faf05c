package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/zalando/go-keyring"

	"vroom/internal/testenv"
	"vroom/internal/testkit"
)

// startWailsDev runs `wails dev` and returns the URL where the frontend is
// served with working Go bindings. env adds to the app's environment.
//
// A window whose GTK could not open the display although the display
// answers is started once more, and the test says so: the display, not
// the app, failed (what xdpyinfo reported then is in the log).
func startWailsDev(t *testing.T, configDir string, env ...string) string {
	t.Helper()
	wails, err := filepath.Abs("build/bin-tools/wails")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wails); err != nil {
		t.Fatalf("the Wails CLI is not built (run `make frontend`): %v", err)
	}
	url, out := wailsDev(t, wails, configDir, env)
	if url != "" {
		return url
	}
	if !strings.Contains(out, "failed to init GTK") {
		t.Fatalf("the app exited at startup:\n%s", out)
	}
	info, err := exec.Command("xdpyinfo").CombinedOutput()
	t.Logf("the window's GTK could not open the display; xdpyinfo then (err %v):\n%.600s\nthe app's output:\n%s", err, info, out)
	if url, out = wailsDev(t, wails, configDir, env); url == "" {
		t.Fatalf("the app exited at startup again:\n%s", out)
	}
	return url
}

// wailsDev is one start of `wails dev`: the URL it serves, or "" and its
// output when the app exited at startup.
func wailsDev(t *testing.T, wails, configDir string, env []string) (url, out string) {
	t.Helper()
	port := testkit.FreePort(t)
	var logs testkit.LockedBuffer
	cmd := exec.Command(wails, "dev", "-m", "-s", "-nogorebuild", "-noreload", "-nocolour",
		"-tags", "webkit2_41", "-assetdir", "frontend/dist", "-devserver", fmt.Sprintf("127.0.0.1:%d", port))
	cmd.Env = append(os.Environ(), "VROOM_CONFIG_DIR="+configDir, "OPENAI_API_KEY=", "NO_AT_BRIDGE=1", "VROOM_DATA_DIR="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop := func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}
	url = fmt.Sprintf("http://127.0.0.1:%d/", port)
	failed := false
	// The first start compiles the app: allow minutes, not seconds.
	testkit.WaitFor(t, 5*time.Minute, "wails dev serving "+url, func() bool {
		select {
		case <-exited:
			t.Fatalf("wails dev exited:\n%s", logs.String())
		default:
		}
		// The app's own last words (app.Main's "vroom: ..."): wails dev
		// outlives an app that failed to start, waiting for a rebuild.
		if out := logs.String(); strings.HasPrefix(out, "vroom: ") || strings.Contains(out, "\nvroom: ") {
			failed = true
			return true
		}
		resp, err := http.Get(url + "wails/ipc.js")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if failed {
		stop()
		return "", logs.String()
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("wails dev output:\n%s", logs.String())
		}
	})
	return url, ""
}

// retype replaces a field's text the way a person does: select all, type.
func retype(css, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Focus(chromedp.CSS(css)),
		chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.SendKeys(chromedp.CSS(css), text),
	)
}

// driver starts a headless Chromium that drives the UI, closed when the
// test ends, and returns a context for it that ends after d.
func driver(t *testing.T, chrome string, d time.Duration) context.Context {
	t.Helper()
	allocCtx, cancel := chromedp.NewExecAllocator(t.Context(),
		chromedp.ExecPath(chrome), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(1280, 800))
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, d)
	t.Cleanup(cancel)
	return ctx
}

// The frontend in headless Chromium against `wails dev`: type in the
// omnibox, open settings, save an API key and a base URL. The Go side has
// them: the key is in the real keyring, the settings file has the URL and not
// the key.
func TestFrontendSettingsEndToEnd(t *testing.T) {
	testenv.NeedDisplay(t)
	testenv.NeedSecretService(t)
	chrome := chromium(t)
	configDir := t.TempDir()
	url := startWailsDev(t, configDir)
	t.Cleanup(func() { keyring.Delete("vroom", "openai-api-key") })

	ctx := driver(t, chrome, 2*time.Minute)
	const key = "sk-e2e-test-key-4242"
	const baseURL = "http://127.0.0.1:11434/v1"
	err := chromedp.Do(ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`input[name=omnibox]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name=omnibox]`), "add three unique skills to my profile"),
		chromedp.WaitVisible(chromedp.CSS(`.hint[data-kind=task]`)),
		// No key is configured, so the settings panel opened by itself.
		chromedp.WaitVisible(chromedp.CSS(`aside.settings`)),
		chromedp.SendKeys(chromedp.CSS(`#api-key`), key),
		chromedp.Click(chromedp.CSS(`form.key button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`form.key .src`)),
	)
	if err != nil {
		t.Fatalf("omnibox and key: %v", err)
	}
	hint, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`form.key .src`)))
	if err != nil || !strings.Contains(hint, "4242") || !strings.Contains(hint, "keyring") {
		t.Fatalf("key hint = %q, %v; want the last four digits from the keyring", hint, err)
	}
	err = chromedp.Do(ctx,
		retype(`#base-url`, baseURL),
		chromedp.Click(chromedp.CSS(`button.primary[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.saved`)),
	)
	if err != nil {
		t.Fatalf("save settings: %v", err)
	}
	saved, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`p.saved`)))
	if saved != "Settings saved." {
		t.Fatalf("status = %q", saved)
	}

	got, err := keyring.Get("vroom", "openai-api-key")
	if err != nil || got != key {
		t.Fatalf("keyring holds %q, %v; want the key typed in the UI", got, err)
	}
	file, err := os.ReadFile(filepath.Join(configDir, "settings.json"))
	if err != nil {
		t.Fatalf("settings file: %v", err)
	}
	if !strings.Contains(string(file), `"base_url": "`+baseURL+`"`) {
		t.Errorf("settings file lacks the base URL:\n%s", file)
	}
	if strings.Contains(string(file), key) || strings.Contains(string(file), "4242") {
		t.Errorf("settings file holds the key:\n%s", file)
	}

	// A bad URL is refused with its own message and the file is unchanged.
	err = chromedp.Do(ctx,
		retype(`#base-url`, "localhost:11434"),
		chromedp.Click(chromedp.CSS(`button.primary[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.error`)),
	)
	if err != nil {
		t.Fatalf("bad URL: %v", err)
	}
	msg, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`p.error`)))
	if !strings.Contains(msg, "base_url") || !strings.Contains(msg, "http://") {
		t.Errorf("error shown = %q, want it to name base_url and the fix", msg)
	}
	after, _ := os.ReadFile(filepath.Join(configDir, "settings.json"))
	if !bytes.Equal(after, file) {
		t.Errorf("a refused save changed the file")
	}
}
