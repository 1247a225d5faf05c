package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// The peers' versions, pinned so that two runs compare the same engines;
// raise them by hand (`npm view <package> version`) and rerun.
const (
	playwrightMCP     = "@playwright/mcp@0.0.83"
	chromeDevtoolsMCP = "chrome-devtools-mcp@1.11.0"
	agentBrowser      = "agent-browser@0.41.2"
)

// version is a pinned package's version.
func version(pkg string) string { return pkg[strings.LastIndex(pkg, "@")+1:] }

// kit is what the engines are run from: the npm packages installed in a
// folder of their own, the vroom binary, and the one Chromium they share.
type kit struct {
	Dir      string // the folder the packages are installed in
	Vroom    string // the vroom binary
	Chromium string // the browser every engine launches
	// VroomVersion is the commit vroom was built from, when it was built
	// here.
	VroomVersion string
}

// bin is the path of an installed package's program.
func (k kit) bin(name string) string { return filepath.Join(k.Dir, "node_modules", ".bin", name) }

// agentBrowserBin is agent-browser's native program for this platform,
// shipped inside its npm package: what a global install links to (its
// install script does the linking; scripts are not run here).
func (k kit) agentBrowserBin() string {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	name := "agent-browser-" + runtime.GOOS + "-" + arch
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(k.Dir, "node_modules", "agent-browser", "bin", name)
}

// chromeFlags are the switches every engine's Chromium gets: as root it
// needs no sandbox, and on a closed network a browser that checks for
// updates and components retries forever, so none of it starts.
func chromeFlags() []string {
	f := []string{"--disable-background-networking", "--disable-component-update", "--no-first-run", "--no-default-browser-check"}
	if os.Geteuid() == 0 {
		f = append(f, "--no-sandbox")
	}
	return f
}

// install puts the pinned peers into dir with npm, without their install
// scripts and without any browser download: every engine uses the
// Chromium given. A dir that already holds them is used as it is.
func install(ctx context.Context, dir string, logf func(string, ...any)) error {
	pkgs := []string{playwrightMCP, chromeDevtoolsMCP, agentBrowser}
	if installed(dir, pkgs) {
		logf("peers already installed in %s", dir)
		return nil
	}
	logf("installing %s into %s", strings.Join(pkgs, ", "), dir)
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"vroom-bench-peers","private":true}`), 0o644); err != nil {
		return fmt.Errorf("install the peers: %w", err)
	}
	args := append([]string{"install", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact", "--loglevel=error"}, pkgs...)
	cmd := exec.CommandContext(ctx, "npm", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1", "PUPPETEER_SKIP_DOWNLOAD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm install: %w\n%s", err, out)
	}
	return nil
}

// installed says whether dir holds every package at its pinned version.
func installed(dir string, pkgs []string) bool {
	for _, p := range pkgs {
		at := strings.LastIndex(p, "@")
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", p[:at], "package.json"))
		if err != nil || !strings.Contains(string(b), `"version": "`+p[at+1:]+`"`) {
			return false
		}
	}
	return true
}

// buildVroom builds the vroom binary of the module this command is run in
// into dir, and returns its path and the commit it was built from.
func buildVroom(ctx context.Context, dir string) (bin, commit string, err error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", "", fmt.Errorf("find the module: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	bin = filepath.Join(dir, "vroom")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("build vroom in %s: %w\n%s", root, err, out)
	}
	// Without git the column is just "Vroom".
	rev, _ := exec.CommandContext(ctx, "git", "-C", root, "describe", "--always", "--dirty").Output()
	return bin, strings.TrimSpace(string(rev)), nil
}

// chromiumVersion is what the browser says it is, for the table's header.
func chromiumVersion(ctx context.Context, path string) string {
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return path
	}
	return strings.TrimSpace(string(out))
}
