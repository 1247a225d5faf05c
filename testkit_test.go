package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A shared test helper is defined once, in its home, and every package's
// tests use it. sharedHelpers lists them with the names their copies went
// by; a top-level function or type of one of those names in a test file or
// under internal/ is a copy. Three copies are found by shape instead, so a
// new name does not hide one: a struct of a sync.Mutex and a bytes.Buffer
// (a locked buffer), a "WAVEfmt " literal (a WAV encoder) and a
// "/v1/audio/speech" literal (a speech server).
var sharedHelpers = []sharedHelper{
	{home: "internal/testkit", name: "LockedBuffer", copies: []string{"syncBuffer", "lockedBuffer"}},
	{home: "internal/testkit", name: "WaitFor", copies: []string{"waitFor", "poll", "eventually"}},
	{home: "internal/testkit", name: "Median", copies: []string{"median", "medianOf"}},
	{home: "internal/testkit", name: "FreePort", copies: []string{"freePort"}},
	{home: "internal/testenv", name: "KillChromium", copies: []string{"killChromium", "killProfileChromium"}},
	{home: "internal/modeltest", name: "PlannerScript", copies: []string{"plannerScript", "plannerSpawns"}},
	{home: "internal/modeltest", name: "Tone", copies: []string{"tone"}},
	{home: "internal/modeltest", name: "PCMBytes", copies: []string{"le"}},
	{home: "internal/modeltest", name: "New", copies: []string{"newSpeechServer", "speechServer", "writeChunked"}},
}

// Shapes a copy is found by, and where each may stand. The product's WAV
// encoder is voice.WAV; modeltest keeps its own as the provider's side of
// the wire, so that a fake never agrees with a bug in the code under test.
const (
	shapeLockedBuffer  = "a locked buffer (a struct of sync.Mutex and bytes.Buffer)"
	shapeWAVEncoder    = `a WAV encoder ("WAVEfmt ")`
	shapeSpeechServer  = `a speech endpoint ("/v1/audio/speech")`
	lockedBufferHome   = "internal/testkit"
	speechServerHome   = "internal/modeltest"
	productWAVEncoder  = "voice"
	providerWAVEncoder = "internal/modeltest"
)

// pendingCopies are copies in app/ that the app's tests are yet to replace
// with the shared helper (the first name in each entry's comment): the
// check reports them and lets them pass. An entry that no longer matches a
// copy fails the check, so the list only shrinks; once it is empty, every
// helper is defined once.
var pendingCopies = []pendingCopy{}

// selfFile is this check, which names every shape it looks for.
const selfFile = "testkit_test.go"

type sharedHelper struct {
	home   string   // the directory of the package that defines it
	name   string   // its name there
	copies []string // the names its copies went by
}

type pendingCopy struct {
	dir  string // a directory, with everything under it
	what string // the copy's name or shape
}

// helperCopy is one definition found outside its home.
type helperCopy struct {
	file string // slash-separated, relative to the module's root
	line int
	what string // the copy's name or shape
	home string // where it belongs
}

func (c helperCopy) String() string {
	return fmt.Sprintf("%s:%d: %s (use the one in %s)", c.file, c.line, c.what, c.home)
}

func TestHelpersDefinedOnce(t *testing.T) {
	t.Parallel()
	copies, homes, err := findHelperCopies(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range sharedHelpers {
		if n := homes[h.home+"."+h.name]; n != 1 {
			t.Errorf("%s.%s is defined %d times in its home, want once", h.home, h.name, n)
		}
	}
	matched := make([]bool, len(pendingCopies))
	for _, c := range copies {
		i := slices.IndexFunc(pendingCopies, func(p pendingCopy) bool { return p.matches(c) })
		if i < 0 {
			t.Errorf("%v: defined again", c)
			continue
		}
		matched[i] = true
		t.Logf("pending: %v", c)
	}
	for i, p := range pendingCopies {
		if !matched[i] {
			t.Errorf("pendingCopies lists %s under %s/, which holds none now: remove the entry", p.what, p.dir)
		}
	}
}

func (p pendingCopy) matches(c helperCopy) bool {
	return p.what == c.what && strings.HasPrefix(c.file, p.dir+"/")
}

// The check finds a copy by name and each copy by its shape, in a test
// file and in product code, and passes a module with none.
func TestHelpersCheckCanFail(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(path, src string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("internal/testkit/buffer.go", "package testkit\n\nimport (\"bytes\"; \"sync\")\n\ntype LockedBuffer struct { mu sync.Mutex; b bytes.Buffer }\n")
	write("voice/wav.go", "package voice\n\nfunc WAV() []byte { return []byte(\"RIFF....WAVEfmt \") }\n")
	write("agents/run_test.go", "package agents\n\nfunc median(xs []float64) float64 { return 0 }\n")
	copies, _, err := findHelperCopies(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(copies) != 1 || copies[0].what != "median" || copies[0].file != "agents/run_test.go" {
		t.Fatalf("a median in agents' tests: found %v", copies)
	}
	write("agents/run_test.go", "package agents\n\nimport (\"bytes\"; \"sync\")\n\ntype logBuf struct {\n\tmu sync.Mutex\n\tb  bytes.Buffer\n}\n")
	write("app/doctor.go", "package app\n\nconst riff = \"WAVEfmt \"\n")
	write("app/speech_test.go", "package app\n\nconst route = \"POST /v1/audio/speech\"\n")
	write("agents/executor.go", "package agents\n\nfunc waitFor() {}\n") // product code's own waitFor is no test helper
	copies, _, err = findHelperCopies(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range copies {
		got = append(got, c.file+" "+c.what)
	}
	want := []string{"agents/run_test.go " + shapeLockedBuffer, "app/doctor.go " + shapeWAVEncoder, "app/speech_test.go " + shapeSpeechServer}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("found %q, want %q", got, want)
	}
}

// findHelperCopies parses every Go file under root and returns the copies
// of shared helpers, and how often each home defines its helper (keyed
// "home.name").
func findHelperCopies(root string) ([]helperCopy, map[string]int, error) {
	homes := map[string]int{}
	var copies []helperCopy
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case d.Name() == "node_modules", d.Name() == "testdata", d.Name() == ".git", rel == "frontend", rel == "build":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || rel == selfFile {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		found, defs := fileHelperCopies(fset, f, rel)
		copies = append(copies, found...)
		for _, k := range defs {
			homes[k]++
		}
		return nil
	})
	return copies, homes, err
}

// fileHelperCopies returns the copies in one file, and the shared helpers
// it defines in their home.
func fileHelperCopies(fset *token.FileSet, f *ast.File, rel string) (copies []helperCopy, homes []string) {
	dir := filepath.ToSlash(filepath.Dir(rel))
	helperCode := strings.HasSuffix(rel, "_test.go") || dir == "internal" || strings.HasPrefix(dir, "internal/")
	add := func(pos token.Pos, what, home string) {
		copies = append(copies, helperCopy{file: rel, line: fset.Position(pos).Line, what: what, home: home})
	}
	for _, d := range topLevelNames(f) {
		for _, h := range sharedHelpers {
			switch {
			case d.name == h.name && dir == h.home && !strings.HasSuffix(rel, "_test.go"):
				homes = append(homes, h.home+"."+h.name)
			case helperCode && slices.Contains(h.copies, d.name):
				add(d.pos, d.name, h.home)
			}
		}
		if helperCode && dir != lockedBufferHome && isLockedBuffer(d.spec) {
			add(d.pos, shapeLockedBuffer, lockedBufferHome)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		if strings.Contains(s, "WAVEfmt ") && dir != productWAVEncoder && dir != providerWAVEncoder {
			add(lit.Pos(), shapeWAVEncoder, productWAVEncoder)
		}
		if strings.Contains(s, "/v1/audio/speech") && dir != speechServerHome {
			add(lit.Pos(), shapeSpeechServer, speechServerHome)
		}
		return true
	})
	return copies, homes
}

// declared is a function (not a method) or a type a file declares at its
// top level; spec is the type's.
type declared struct {
	name string
	pos  token.Pos
	spec *ast.TypeSpec
}

func topLevelNames(f *ast.File) []declared {
	var out []declared
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				out = append(out, declared{d.Name.Name, d.Pos(), nil})
			}
		case *ast.GenDecl:
			if d.Tok != token.TYPE {
				continue
			}
			for _, s := range d.Specs {
				ts := s.(*ast.TypeSpec)
				out = append(out, declared{ts.Name.Name, ts.Pos(), ts})
			}
		}
	}
	return out
}

// isLockedBuffer reports a struct of exactly a sync.Mutex and a
// bytes.Buffer.
func isLockedBuffer(ts *ast.TypeSpec) bool {
	if ts == nil {
		return false
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok || st.Fields.NumFields() != 2 {
		return false
	}
	var types []string
	for _, f := range st.Fields.List {
		sel, ok := f.Type.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return false
		}
		for range max(len(f.Names), 1) {
			types = append(types, x.Name+"."+sel.Sel.Name)
		}
	}
	slices.Sort(types)
	return slices.Equal(types, []string{"bytes.Buffer", "sync.Mutex"})
}
