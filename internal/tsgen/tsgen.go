package tsgen

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Variant is one case of a tagged union: the kind value and the payload
// type that goes with it.
type Variant struct {
	Kind string
	Data reflect.Type
}

// Field is one property of a declared record: a key and its value's type.
type Field struct {
	Key  string
	Type reflect.Type
}

// Generator collects declarations and writes them as one TypeScript file.
// Every named type a declared type refers to is declared too, under its Go
// name unless Name gave it another; two Go types with one TypeScript name
// are an error, not a silent merge.
type Generator struct {
	module, root string
	header       string

	names map[reflect.Type]string // TS name of each declared Go type
	decls map[string]string       // TS name → declaration text
	pkgs  map[string]*pkgSource   // by import path
	errs  []error
}

// pkgSource is what the generator reads from a package's files: the
// values of its string constants by type name.
type pkgSource struct {
	consts map[string][]string
}

// New returns a generator for types of module, whose source is under root
// (the module's directory). header is written at the top of the file.
func New(module, root, header string) *Generator {
	return &Generator{
		module: module, root: root, header: header,
		names: map[reflect.Type]string{},
		decls: map[string]string{},
		pkgs:  map[string]*pkgSource{},
	}
}

// Name declares t under name instead of its Go name, for a Go name that
// would mislead in the UI (agents.Event is the room's event).
func (g *Generator) Name(name string, t reflect.Type) {
	if old, ok := g.names[t]; ok && old != name {
		g.fail(fmt.Errorf("%s is named both %s and %s", t, old, name))
		return
	}
	g.names[t] = name
}

// Types declares each type (and what it refers to).
func (g *Generator) Types(ts ...reflect.Type) {
	for _, t := range ts {
		g.ref(t)
	}
}

// Tagged declares name as a union of t's JSON shape, one case per variant:
// in each case the kind field holds the variant's kind and the data field
// its payload type. The variants must be exactly the constants of the kind
// field's type, so a kind added in Go without a payload here fails.
func (g *Generator) Tagged(name string, t reflect.Type, kindField, dataField string, variants []Variant) {
	kf, ok := t.FieldByName(kindField)
	if !ok {
		g.fail(fmt.Errorf("%s has no field %s", t, kindField))
		return
	}
	if _, ok := t.FieldByName(dataField); !ok {
		g.fail(fmt.Errorf("%s has no field %s", t, dataField))
		return
	}
	// References to t from other declarations use this union.
	g.Name(name, t)
	g.decls[name] = ""
	kinds := g.constants(kf.Type)
	if len(kinds) == 0 {
		g.fail(fmt.Errorf("%s: %s has no constants", name, kf.Type))
		return
	}
	var have []string
	for _, v := range variants {
		have = append(have, v.Kind)
	}
	sort.Strings(have)
	if strings.Join(kinds, ",") != strings.Join(have, ",") {
		g.fail(fmt.Errorf("%s: variants %v, but %s's constants are %v", name, have, kf.Type, kinds))
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "/** %s, its %s's type following its %s. */\nexport type %s =\n", goName(t), dataField, kindField, name)
	for _, v := range variants {
		b.WriteString("  | { ")
		for i, f := range g.fields(t) {
			if i > 0 {
				b.WriteString("; ")
			}
			switch f.goName {
			case kindField:
				fmt.Fprintf(&b, "%s: %s", f.key, strconv.Quote(v.Kind))
			case dataField:
				fmt.Fprintf(&b, "%s: %s", f.key, g.ref(v.Data))
			default:
				b.WriteString(f.decl)
			}
		}
		b.WriteString(" }\n")
	}
	g.decls[name] = b.String()
}

// Record declares name as an interface from fixed keys to types: an event
// name to its payload.
func (g *Generator) Record(name, doc string, fields []Field) {
	var b strings.Builder
	fmt.Fprintf(&b, "/** %s */\nexport interface %s {\n", doc, name)
	for _, f := range fields {
		fmt.Fprintf(&b, "  %s: %s\n", strconv.Quote(f.Key), g.ref(f.Type))
	}
	b.WriteString("}\n")
	g.declare(name, b.String())
}

// Events declares name as a record from each event's name to its payload,
// as Record does, for events named by the string constants of kind: a
// generic type such as Event[T], whose every instantiation counts. The
// fields must be exactly those constants, so an event added in Go
// without its payload here fails.
func (g *Generator) Events(name, doc string, kind reflect.Type, fields []Field) {
	names := g.constants(kind)
	if len(names) == 0 {
		g.fail(fmt.Errorf("%s: %s has no constants", name, kind))
		return
	}
	var have []string
	for _, f := range fields {
		have = append(have, f.Key)
	}
	sort.Strings(have)
	if strings.Join(names, ",") != strings.Join(have, ",") {
		g.fail(fmt.Errorf("%s: fields %v, but %s's constants are %v", name, have, baseName(kind), names))
		return
	}
	g.Record(name, doc, fields)
}

// Bytes returns the file: the header, then every declaration by name.
func (g *Generator) Bytes() ([]byte, error) {
	if len(g.errs) > 0 {
		return nil, errors.Join(g.errs...)
	}
	names := make([]string, 0, len(g.decls))
	for n := range g.decls {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteString(g.header)
	for _, n := range names {
		b.WriteString("\n")
		b.WriteString(g.decls[n])
	}
	return b.Bytes(), nil
}

func (g *Generator) fail(err error) { g.errs = append(g.errs, err) }

// declare records a declaration; one name for two shapes is an error.
func (g *Generator) declare(name, text string) {
	if old, ok := g.decls[name]; ok && old != text {
		g.fail(fmt.Errorf("two declarations named %s", name))
		return
	}
	g.decls[name] = text
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
)

// ref returns the TypeScript for t where it is used, declaring t first
// when it is a named struct or a string kind.
func (g *Generator) ref(t reflect.Type) string {
	switch t {
	case timeType:
		return "string" // RFC 3339
	case durationType:
		return "number" // nanoseconds
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		if t.Name() == "" || t.PkgPath() == "" || len(g.constants(t)) == 0 {
			return "string"
		}
		return g.union(t)
	case reflect.Interface:
		return "unknown"
	case reflect.Pointer:
		return g.ref(t.Elem())
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // base64
		}
		e := g.ref(t.Elem())
		if strings.ContainsAny(e, " |") {
			e = "(" + e + ")"
		}
		return e + "[]"
	case reflect.Map:
		return "Record<string, " + g.ref(t.Elem()) + ">"
	case reflect.Struct:
		if t.Name() == "" {
			var ds []string
			for _, f := range g.fields(t) {
				ds = append(ds, f.decl)
			}
			return "{ " + strings.Join(ds, "; ") + " }"
		}
		return g.structDecl(t)
	}
	g.fail(fmt.Errorf("%s: no JSON shape for kind %s", t, t.Kind()))
	return "never"
}

// union declares a string kind as the union of its constants' values.
func (g *Generator) union(t reflect.Type) string {
	name := g.tsName(t)
	var vals []string
	for _, v := range g.constants(t) {
		vals = append(vals, strconv.Quote(v))
	}
	g.declare(name, fmt.Sprintf("/** %s */\nexport type %s = %s\n", goName(t), name, strings.Join(vals, " | ")))
	return name
}

func (g *Generator) structDecl(t reflect.Type) string {
	name := g.tsName(t)
	if _, ok := g.decls[name]; ok {
		return name
	}
	g.decls[name] = "" // a recursive reference finds the name
	g.decls[name] = fmt.Sprintf("/** %s */\nexport interface %s %s\n", goName(t), name, g.object(t))
	return name
}

// object is a named struct's fields as a TypeScript object type.
func (g *Generator) object(t reflect.Type) string {
	fs := g.fields(t)
	if len(fs) == 0 {
		return "{}"
	}
	var b strings.Builder
	b.WriteString("{\n")
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s\n", f.decl)
	}
	b.WriteString("}")
	return b.String()
}

// tsName is t's TypeScript name: as given to Name, else its Go name.
func (g *Generator) tsName(t reflect.Type) string {
	if n, ok := g.names[t]; ok {
		return n
	}
	for other, n := range g.names {
		if n == t.Name() && other != t {
			g.fail(fmt.Errorf("%s and %s would both be %s: give one another name", goName(other), goName(t), n))
		}
	}
	g.names[t] = t.Name()
	return t.Name()
}

// field is one JSON property of a struct.
type field struct {
	goName string
	key    string
	decl   string // "key?: type"
}

// fields are t's JSON properties in encoding/json's order: exported
// fields, renamed and omitted by their tags, embedded structs' fields
// promoted.
func (g *Generator) fields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, g.fields(ft)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		key := name
		if !isIdent(key) {
			key = strconv.Quote(key)
		}
		typ := g.ref(ft)
		if hasOpt(opts, "string") {
			typ = "string"
		}
		optional := hasOpt(opts, "omitzero") || hasOpt(opts, "omitempty") && omitsEmpty(ft)
		if !optional && nilable(ft) {
			typ += " | null"
		}
		q := ""
		if optional {
			q = "?"
		}
		out = append(out, field{goName: f.Name, key: name, decl: fmt.Sprintf("%s%s: %s", key, q, typ)})
	}
	return out
}

// omitsEmpty reports whether omitempty can drop a value of t: it never
// drops a struct, whatever its fields.
func omitsEmpty(t reflect.Type) bool { return t.Kind() != reflect.Struct }

// nilable reports whether a value of t can encode as null.
func nilable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		return !(t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8)
	}
	return false
}

func hasOpt(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return s != ""
}

// goName is t as Go code names it, e.g. agents.Entry.
func goName(t reflect.Type) string { return t.String() }

// constants are the values of t's string constants, sorted, read from the
// source of t's package; none for a type outside the module.
func (g *Generator) constants(t reflect.Type) []string {
	pkg := t.PkgPath()
	if pkg != g.module && !strings.HasPrefix(pkg, g.module+"/") {
		return nil
	}
	src, ok := g.pkgs[pkg]
	if !ok {
		var err error
		src, err = readPackage(filepath.Join(g.root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(pkg, g.module), "/"))))
		if err != nil {
			g.fail(fmt.Errorf("reading %s: %w", pkg, err))
			src = &pkgSource{}
		}
		g.pkgs[pkg] = src
	}
	return src.consts[baseName(t)]
}

// baseName is t's name without type arguments: Event for Event[T].
func baseName(t reflect.Type) string {
	n, _, _ := strings.Cut(t.Name(), "[")
	return n
}

// typeIdent is the name of a constant's declared type, a generic one's
// without its arguments (Event for Event[TabsView]); nil for none.
func typeIdent(e ast.Expr) *ast.Ident {
	switch t := e.(type) {
	case *ast.Ident:
		return t
	case *ast.IndexExpr:
		id, _ := t.X.(*ast.Ident)
		return id
	case *ast.IndexListExpr:
		id, _ := t.X.(*ast.Ident)
		return id
	}
	return nil
}

// readPackage collects a package's typed string constants from its
// non-test files: `Name Type = "value"`, and `Name Type[T] = "value"`
// under Type.
func readPackage(dir string) (*pkgSource, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	src := &pkgSource{consts: map[string][]string{}}
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				id := typeIdent(vs.Type)
				if id == nil {
					continue
				}
				for _, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, err := strconv.Unquote(lit.Value); err == nil {
							src.consts[id.Name] = append(src.consts[id.Name], s)
						}
					}
				}
			}
		}
	}
	for n, vs := range src.consts {
		sort.Strings(vs)
		src.consts[n] = slices.Compact(vs)
	}
	return src, nil
}
