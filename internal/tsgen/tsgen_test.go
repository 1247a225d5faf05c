package tsgen

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

type color string

type inner struct {
	N int `json:"n"`
}

type Base struct {
	ID string `json:"id"`
}

type shape struct {
	Base
	Name     string            `json:"name"`
	Color    color             `json:"color"`
	Note     string            `json:"note,omitempty"`
	At       time.Time         `json:"at"`
	Ended    time.Time         `json:"ended,omitzero"`
	Kept     time.Time         `json:"kept,omitempty"` // omitempty never drops a struct
	Left     time.Duration     `json:"left"`
	Tags     []string          `json:"tags"`
	Opt      []string          `json:"opt,omitempty"`
	Ptr      *bool             `json:"ptr,omitempty"`
	Nilable  *inner            `json:"nilable"`
	Inner    inner             `json:"inner"`
	Meta     map[string]inner  `json:"meta"`
	Data     any               `json:"data,omitempty"`
	Blob     []byte            `json:"blob"`
	Count    int64             `json:"count,string"`
	Untagged int               // keeps its Go name
	Skipped  string            `json:"-"`
	hidden   string            // unexported: not encoded
	Anon     struct{ X bool }  `json:"anon"`
	Dashed   map[string]string `json:"dashed-key"`
}

// named is an event name typed by its payload, as app's events are.
type named[T any] string

type event struct {
	Kind color `json:"kind"`
	Data any   `json:"data,omitempty"`
}

// writeKinds gives the test package's source a constant set for color,
// as a real package's kind constants are read from its files.
func writeKinds(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := "package tsgen\n\nconst (\n\tRed color = \"red\"\n\tBlue color = \"blue\"\n\tAlsoRed color = \"red\"\n)\n" +
		"\nconst (\n\tOpened named[inner] = \"x:opened\"\n\tClosed named[string] = \"x:closed\"\n)\n"
	if err := os.WriteFile(filepath.Join(dir, "kinds.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func generate(t *testing.T, g *Generator) string {
	t.Helper()
	b, err := g.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFieldsFollowEncodingJSON(t *testing.T) {
	g := New("vroom/internal/tsgen", writeKinds(t), "// header\n")
	g.Types(reflect.TypeFor[shape]())
	got := generate(t, g)
	for _, want := range []string{
		"// header\n",
		`export type color = "blue" | "red"`,
		"export interface inner {\n  n: number\n}",
		"  id: string\n  name: string\n  color: color\n",
		"  note?: string\n",
		"  at: string\n  ended?: string\n  kept: string\n  left: number\n",
		"  tags: string[] | null\n  opt?: string[]\n  ptr?: boolean\n  nilable: inner | null\n  inner: inner\n",
		"  meta: Record<string, inner> | null\n  data?: unknown\n  blob: string\n  count: string\n  Untagged: number\n",
		"  anon: { X: boolean }\n",
		`  "dashed-key": Record<string, string> | null`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	for _, bad := range []string{"Skipped", "hidden", "Base"} {
		if strings.Contains(got, bad) {
			t.Errorf("%s should not appear in\n%s", bad, got)
		}
	}
}

func TestTaggedNeedsEveryKind(t *testing.T) {
	dir := writeKinds(t)
	g := New("vroom/internal/tsgen", dir, "")
	g.Tagged("Event", reflect.TypeFor[event](), "Kind", "Data", []Variant{
		{Kind: "red", Data: reflect.TypeFor[inner]()},
		{Kind: "blue", Data: reflect.TypeFor[string]()},
	})
	got := generate(t, g)
	for _, want := range []string{
		`  | { kind: "red"; data: inner }`,
		`  | { kind: "blue"; data: string }`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}

	g = New("vroom/internal/tsgen", dir, "")
	g.Tagged("Event", reflect.TypeFor[event](), "Kind", "Data", []Variant{{Kind: "red", Data: reflect.TypeFor[inner]()}})
	if _, err := g.Bytes(); err == nil || !strings.Contains(err.Error(), "blue") {
		t.Errorf("a kind without a variant: err %v, want one naming blue", err)
	}
}

func TestOneNameForTwoTypesFails(t *testing.T) {
	g := New("vroom/internal/tsgen", writeKinds(t), "")
	g.Name("inner", reflect.TypeFor[Base]())
	g.Types(reflect.TypeFor[Base](), reflect.TypeFor[inner]())
	if _, err := g.Bytes(); err == nil {
		t.Fatal("two Go types declared as inner, and no error")
	}
}

// TestEventsNeedEveryEvent: a record of events lists every constant of the
// generic event type, whatever its payload, and one left out fails.
func TestEventsNeedEveryEvent(t *testing.T) {
	dir := writeKinds(t)
	kind := reflect.TypeFor[named[any]]()
	g := New("vroom/internal/tsgen", dir, "")
	g.Events("Events", "doc", kind, []Field{
		{Key: "x:opened", Type: reflect.TypeFor[inner]()},
		{Key: "x:closed", Type: reflect.TypeFor[string]()},
	})
	got := generate(t, g)
	for _, want := range []string{`  "x:opened": inner`, `  "x:closed": string`} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	g = New("vroom/internal/tsgen", dir, "")
	g.Events("Events", "doc", kind, []Field{{Key: "x:opened", Type: reflect.TypeFor[inner]()}})
	if _, err := g.Bytes(); err == nil || !strings.Contains(err.Error(), "x:closed") {
		t.Errorf("an event without its payload: err %v, want one naming x:closed", err)
	}
}
