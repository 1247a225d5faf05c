package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Rooms stay small: a file holds one concern and a function one idea, and
// this test is where the limits are written down, for every hand-written
// file; generated code is not written by hand.
const (
	maxFileLines = 600
	maxFuncLines = 80
)

// sourceExts are the hand-written source files the limits apply to.
var sourceExts = map[string]bool{".go": true, ".ts": true, ".svelte": true, ".js": true, ".css": true}

// sourceFiles lists the hand-written source files under root.
func sourceFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path) // path is under root by construction
		if d.IsDir() {
			switch {
			case d.Name() == "node_modules", d.Name() == ".git", d.Name() == "dist", d.Name() == "wailsjs",
				rel == filepath.Join("build", "bin"), rel == filepath.Join("build", "bin-tools"):
				return filepath.SkipDir
			}
			return nil
		}
		if !sourceExts[filepath.Ext(path)] || strings.Contains(d.Name(), ".gen.") {
			return nil
		}
		out = append(out, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// longFiles reports files over maxFileLines.
func longFiles(t *testing.T, files []string) []string {
	t.Helper()
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n > maxFileLines {
			out = append(out, fmt.Sprintf("%s: %d lines", f, n))
		}
	}
	return out
}

// longFuncs reports Go functions (and methods, and function literals
// assigned at the top level) over maxFuncLines, counted from the func line
// to the closing brace.
func longFuncs(t *testing.T, files []string) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if filepath.Ext(f) != ".go" {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
				out = append(out, fmt.Sprintf("%s: func %s: %d lines", f, fd.Name.Name, n))
			}
		}
	}
	return out
}

// TestRoomsStaySmall fails on a source file over 600 lines or a Go function
// over 80.
func TestRoomsStaySmall(t *testing.T) {
	files := sourceFiles(t, ".")
	if len(files) < 50 {
		t.Fatalf("found only %d source files; the walk is wrong", len(files))
	}
	for _, v := range longFiles(t, files) {
		t.Errorf("file over %d lines: %s", maxFileLines, v)
	}
	for _, v := range longFuncs(t, files) {
		t.Errorf("function over %d lines: %s", maxFuncLines, v)
	}
}

// TestRoomsStaySmallCatches proves the checks can fail.
func TestRoomsStaySmallCatches(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.go")
	var b strings.Builder
	b.WriteString("package p\n\nfunc big() {\n")
	for i := 0; i < maxFuncLines; i++ {
		b.WriteString("\t_ = 1\n")
	}
	b.WriteString("}\n\nfunc small() {}\n")
	for i := 0; i < maxFileLines; i++ {
		b.WriteString("// filler\n")
	}
	if err := os.WriteFile(long, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := longFuncs(t, []string{long}); len(got) != 1 || !strings.Contains(got[0], "func big") {
		t.Errorf("longFuncs = %v, want only big", got)
	}
	if got := longFiles(t, []string{long}); len(got) != 1 {
		t.Errorf("longFiles = %v, want the file", got)
	}
	gen := filepath.Join(dir, "types.gen.ts")
	if err := os.WriteFile(gen, []byte(strings.Repeat("x\n", maxFileLines+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range sourceFiles(t, dir) {
		if f == gen {
			t.Error("a generated file is checked")
		}
	}
}
