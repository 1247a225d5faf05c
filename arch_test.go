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

// importRule says what one package may import. Paths are matched by prefix.
type importRule struct {
	pkg    string   // import path of the package the rule is for
	forbid []string // import path prefixes it must not use
}

// importRules is the direction drawn in ARCHITECTURE.md ("Packages and
// direction"): browser and voice import nothing of ours; agents declares
// the interfaces it consumes instead of importing browser or voice; only
// app imports Wails and go-keyring; main only wires.
var importRules = []importRule{
	{pkg: "vroom/browser", forbid: []string{module + "/", "github.com/wailsapp/", "github.com/zalando/go-keyring"}},
	{pkg: "vroom/voice", forbid: []string{module + "/", "github.com/wailsapp/", "github.com/zalando/go-keyring"}},
	{pkg: "vroom/agents", forbid: []string{module + "/app", module + "/browser", module + "/voice", "github.com/wailsapp/", "github.com/zalando/go-keyring", "github.com/chromedp/", "github.com/gen2brain/malgo"}},
	{pkg: "vroom/internal", forbid: []string{module + "/app", module + "/agents", module + "/browser", module + "/voice"}},
	{pkg: "vroom", forbid: []string{module + "/agents", module + "/browser", module + "/voice", "github.com/wailsapp/", "github.com/zalando/go-keyring"}},
}

// onlyApp lists imports no package but app (and its subpackages) may use.
var onlyApp = []string{"github.com/wailsapp/wails/v2", "github.com/zalando/go-keyring"}

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
					if imp == strings.TrimSuffix(f, "/") || strings.HasPrefix(imp, f) {
						bad = append(bad, pkg+" imports "+imp)
					}
				}
			}
		}
		if pkg == module+"/app" || strings.HasPrefix(pkg, module+"/app/") {
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

func TestPackageDirection(t *testing.T) {
	t.Parallel()
	imports := packageImports(t, ".")
	for _, pkg := range []string{"vroom/app", "vroom/agents", "vroom/browser", "vroom/voice"} {
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
	cases := map[string][]string{
		"vroom/browser":            {"vroom/agents"},
		"vroom/voice":              {"vroom/browser"},
		"vroom/agents":             {"vroom/browser"},
		"vroom/agents/llm":         {"github.com/wailsapp/wails/v2/pkg/runtime"},
		"vroom/browser/x":          {"github.com/zalando/go-keyring"},
		"vroom":                    {"vroom/agents"},
		"vroom/internal/modeltest": {"vroom/agents"},
	}
	for pkg, imps := range cases {
		if got := violations(map[string][]string{pkg: imps}); len(got) == 0 {
			t.Errorf("%s importing %v was not reported", pkg, imps)
		}
	}
	if got := violations(map[string][]string{"vroom/app": {"vroom/agents", "vroom/browser", "github.com/wailsapp/wails/v2", "github.com/zalando/go-keyring"}}); len(got) != 0 {
		t.Errorf("app's allowed imports reported: %v", got)
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
