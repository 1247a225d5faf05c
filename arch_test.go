package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "vroom"

// importRule says what one package (and the packages under it) may not
// import. A forbidden path ending in "/" is that package and every one
// under it; any other is that package alone.
type importRule struct {
	pkg    string   // import path of the package the rule is for
	forbid []string // import paths it must not use
}

// The app tree: the desktop face on top, the terminal and MCP faces and
// the doctor below it, the run builder under them, the leaves at the
// bottom.
const (
	appFace   = module + "/app"
	appCLI    = module + "/app/cli/"
	appMCP    = module + "/app/mcpserver/"
	appDoctor = module + "/app/doctor/"
	appRunner = module + "/app/runner/"
	appConfig = module + "/app/config/"
	appRemote = module + "/app/remote/"
	appRunlog = module + "/app/runlog/"
	appTest   = module + "/app/internal/apptest"
)

// importRules is the direction drawn in ARCHITECTURE.md ("Packages and
// direction"): browser and voice import nothing of ours; agents declares
// the interfaces it consumes instead of importing browser or voice; only
// app's tree imports Wails and go-keyring; main only wires. Inside app,
// imports go down: config, remote and runlog are leaves; runner may use
// config and remote but no face; doctor no face; mcpserver and cli may use
// runner; nothing but main imports app itself (nothingImportsApp).
var importRules = []importRule{
	{pkg: "vroom/browser", forbid: []string{module + "/", "github.com/wailsapp/", "github.com/zalando/go-keyring"}},
	{pkg: "vroom/voice", forbid: []string{module + "/", "github.com/wailsapp/", "github.com/zalando/go-keyring"}},
	{pkg: "vroom/agents", forbid: []string{module + "/app/", module + "/browser/", module + "/voice/", "github.com/wailsapp/", "github.com/zalando/go-keyring", "github.com/chromedp/", "github.com/gen2brain/malgo"}},
	{pkg: "vroom/internal", forbid: []string{module + "/app/", module + "/agents/", module + "/browser/", module + "/voice/"}},
	{pkg: "vroom", forbid: []string{module + "/agents/", module + "/browser/", module + "/voice/", "github.com/wailsapp/", "github.com/zalando/go-keyring"}},
	{pkg: "vroom/app/config", forbid: []string{module + "/app/", module + "/voice/"}},
	{pkg: "vroom/app/remote", forbid: []string{module + "/app/", module + "/agents/", module + "/voice/"}},
	{pkg: "vroom/app/runlog", forbid: []string{module + "/app/", module + "/browser/", module + "/voice/"}},
	{pkg: "vroom/app/runner", forbid: []string{appFace, appCLI, appMCP, appDoctor, appRunlog, "github.com/wailsapp/", "github.com/modelcontextprotocol/"}},
	{pkg: "vroom/app/doctor", forbid: []string{appFace, appCLI, appMCP, appRunner, appRunlog, "github.com/wailsapp/"}},
	{pkg: "vroom/app/mcpserver", forbid: []string{appFace, appCLI, appDoctor, "github.com/wailsapp/"}},
	{pkg: "vroom/app/cli", forbid: []string{appFace, "github.com/wailsapp/"}},
	{pkg: "vroom/app/internal/apptest", forbid: []string{module + "/app/"}},
}

// onlyApp lists imports no package but app (and its subpackages) may use.
var onlyApp = []string{"github.com/wailsapp/wails/v2", "github.com/zalando/go-keyring"}

// forbids reports whether the forbidden path f covers the import imp.
func forbids(f, imp string) bool {
	if strings.HasSuffix(f, "/") {
		return imp == strings.TrimSuffix(f, "/") || strings.HasPrefix(imp, f)
	}
	return imp == f
}

// packageImports maps each package under root to the imports of its non-test
// files.
func packageImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "frontend", "testdata", ".git":
				return filepath.SkipDir
			}
			if path != root && (d.Name() == "build" && filepath.Dir(path) == root) {
				return filepath.SkipDir // the Wails CLI tools module
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := module
		if rel != "." {
			pkg = module + "/" + filepath.ToSlash(rel)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			out[pkg] = append(out[pkg], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func violations(imports map[string][]string) []string {
	var bad []string
	for pkg, imps := range imports {
		for _, r := range importRules {
			// The root rule is for package main alone, not the whole tree.
			if pkg != r.pkg && (r.pkg == module || !strings.HasPrefix(pkg, r.pkg+"/")) {
				continue
			}
			for _, imp := range imps {
				for _, f := range r.forbid {
					if forbids(f, imp) {
						bad = append(bad, pkg+" imports "+imp)
					}
				}
			}
		}
		bad = append(bad, nothingImportsApp(pkg, imps)...)
		if pkg == appFace || strings.HasPrefix(pkg, appFace+"/") {
			continue
		}
		for _, imp := range imps {
			for _, o := range onlyApp {
				if strings.HasPrefix(imp, o) {
					bad = append(bad, pkg+" imports "+imp+" (only app may)")
				}
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// nothingImportsApp reports pkg's imports of the desktop face (only main
// may: it wires) and of the app tree's test kit (only tests may, and
// their imports are not scanned).
func nothingImportsApp(pkg string, imps []string) []string {
	var bad []string
	for _, imp := range imps {
		switch {
		case imp == appFace && pkg != module:
			bad = append(bad, pkg+" imports "+imp+" (only main may)")
		case imp == appTest:
			bad = append(bad, pkg+" imports "+imp+" (only tests may)")
		}
	}
	return bad
}

func TestPackageDirection(t *testing.T) {
	t.Parallel()
	imports := packageImports(t, ".")
	for _, pkg := range []string{"vroom/app", "vroom/agents", "vroom/browser", "vroom/voice", "vroom/app/config", "vroom/app/remote",
		"vroom/app/runlog", "vroom/app/runner", "vroom/app/doctor", "vroom/app/mcpserver", "vroom/app/cli", "vroom/app/internal/apptest"} {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("package %s not found", pkg)
		}
	}
	for _, v := range violations(imports) {
		t.Errorf("import against the package direction: %s", v)
	}
}

// The checker itself must catch each kind of violation, or the test above
// proves nothing.
func TestPackageDirectionCatches(t *testing.T) {
	t.Parallel()
	cases := []struct{ pkg, imp string }{
		{"vroom/browser", "vroom/agents"},
		{"vroom/voice", "vroom/browser"},
		{"vroom/agents", "vroom/browser"},
		{"vroom/agents", "vroom/app/runner"},
		{"vroom/agents/llm", "github.com/wailsapp/wails/v2/pkg/runtime"},
		{"vroom/browser/x", "github.com/zalando/go-keyring"},
		{"vroom", "vroom/agents"},
		{"vroom/internal/modeltest", "vroom/agents"},
		// Inside app the imports go down only.
		{"vroom/app/config", "vroom/app/runner"},
		{"vroom/app/config", "vroom/app/remote"},
		{"vroom/app/remote", "vroom/app/config"},
		{"vroom/app/runlog", "vroom/app/config"},
		{"vroom/app/runner", "vroom/app/mcpserver"},
		{"vroom/app/runner", "vroom/app/cli"},
		{"vroom/app/runner", "vroom/app"},
		{"vroom/app/runner", "vroom/app/doctor"},
		{"vroom/app/doctor", "vroom/app/runner"},
		{"vroom/app/doctor", "vroom/app/cli"},
		{"vroom/app/mcpserver", "vroom/app/cli"},
		{"vroom/app/mcpserver", "vroom/app"},
		{"vroom/app/cli", "vroom/app"},
		{"vroom/voice", "vroom/app"},
		{"vroom/app/runner", "vroom/app/internal/apptest"},
		{"vroom/app/internal/apptest", "vroom/app/config"},
	}
	for _, c := range cases {
		if got := violations(map[string][]string{c.pkg: {c.imp}}); len(got) == 0 {
			t.Errorf("%s importing %s was not reported", c.pkg, c.imp)
		}
	}
	allowed := map[string][]string{
		"vroom":               {"vroom/app"},
		"vroom/app":           {"vroom/agents", "vroom/browser", "vroom/app/cli", "vroom/app/runner", "vroom/app/doctor", "vroom/app/runlog", "github.com/wailsapp/wails/v2", "github.com/zalando/go-keyring"},
		"vroom/app/cli":       {"vroom/app/runner", "vroom/app/mcpserver", "vroom/app/doctor", "vroom/app/config", "vroom/app/remote"},
		"vroom/app/mcpserver": {"vroom/app/runner", "vroom/app/runlog", "vroom/app/config", "vroom/app/remote"},
		"vroom/app/runner":    {"vroom/app/config", "vroom/app/remote", "vroom/agents", "vroom/browser", "vroom/voice"},
		"vroom/app/doctor":    {"vroom/app/config", "vroom/app/remote"},
		"vroom/app/config":    {"vroom/agents", "vroom/browser", "github.com/zalando/go-keyring"},
	}
	for pkg, imps := range allowed {
		if got := violations(map[string][]string{pkg: imps}); len(got) != 0 {
			t.Errorf("%s's allowed imports reported: %v", pkg, got)
		}
	}
}

// Package-like file-name prefixes: a file named cmd_run.go or
// mcp_tools.go is a package asking to exist.
var packagePrefixes = []string{"cmd", "mcp", "endpoints", "config", "remote", "runlog", "runner", "doctor", "mcpserver", "cli", "apptest", "desk"}

// prefixedFiles reports the files whose names start with a package-like
// prefix and an underscore.
func prefixedFiles(files []string) []string {
	var bad []string
	for _, f := range files {
		stem := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".go"), "_test")
		for _, p := range packagePrefixes {
			if strings.HasPrefix(stem, p+"_") {
				bad = append(bad, f)
			}
		}
	}
	return bad
}

// No file under app/ carries a package-like prefix.
func TestNoPackagePrefixesInApp(t *testing.T) {
	t.Parallel()
	var files []string
	err := filepath.WalkDir("app", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("found only %d Go files under app/", len(files))
	}
	for _, f := range prefixedFiles(files) {
		t.Errorf("%s: a file-name prefix is a package asking to exist; move it there", f)
	}
	caught := prefixedFiles([]string{"app/cmd_run.go", "app/x/mcp_tools_test.go", "app/endpoints_use.go", "app/runner/build.go", "app/cli/mcp_test.go"})
	if len(caught) != 3 {
		t.Errorf("the check reported %v of cmd_run.go, mcp_tools_test.go, endpoints_use.go (and not build.go or mcp_test.go)", caught)
	}
}

// Every Go package has a doc.go saying what it owns.
func TestPackagesHaveDocGo(t *testing.T) {
	t.Parallel()
	for pkg := range packageImports(t, ".") {
		if pkg == module {
			continue
		}
		dir := strings.TrimPrefix(pkg, module+"/")
		if _, err := os.Stat(filepath.Join(dir, "doc.go")); err != nil {
			t.Errorf("%s has no doc.go", pkg)
		}
	}
}
