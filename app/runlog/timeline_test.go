package runlog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"vroom/agents"
)

// A runaway log is cut at the limit, and the replay says so.
func TestReplayTruncated(t *testing.T) {
	t.Parallel()
	recs := sampleReplayRun(time.Now())
	got, cut := replayTimeline(recs, 5)
	if len(got) != 5 || !cut {
		t.Fatalf("%d entries, cut %v; want 5, cut", len(got), cut)
	}
	got, cut = replayTimeline(recs, len(recs))
	if cut || len(got) != len(recs)-1 {
		t.Fatalf("%d entries, cut %v; want %d whole", len(got), cut, len(recs)-1)
	}
}

func TestReplayWaitLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"all []":    "waits for all its agents",
		"any []":    "waits for any of its agents",
		"any [1 3]": "waits for any of agents 1, 3",
		"all [2]":   "waits for all of agents 2",
	} {
		if got := waitLine(in); got != want {
			t.Errorf("waitLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEveryLogEventHasAKind: whatever agents logs, the entry's kind is one
// of ReplayKind's constants, the union the UI switches on.
func TestEveryLogEventHasAKind(t *testing.T) {
	t.Parallel()
	kinds := constantsOf(t, ".", "ReplayKind")
	events := constantsOf(t, "../../agents", "LogEvent")
	if len(events) < 30 {
		t.Fatalf("found %d log events in agents: %v", len(events), events)
	}
	spoken := map[string]int{}
	for _, ev := range events {
		for _, kind := range []string{"", string(agents.EntrySpeech), string(agents.EntryCorrection), string(agents.EntryAnswer)} {
			e, ok := replayEntryOf(agents.LogRecord{Event: agents.LogEvent(ev), Agent: "agent 1", Kind: kind, Text: "x"}, spoken)
			if ok && !slices.Contains(kinds, string(e.Kind)) {
				t.Errorf("the log event %q (kind %q) renders as %q, which is no ReplayKind", ev, kind, e.Kind)
			}
		}
	}
}

// constantsOf lists the values of the string constants of type typ in the
// Go files of dir.
func constantsOf(t *testing.T, dir, typ string) []string {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, sp := range gd.Specs {
					vs := sp.(*ast.ValueSpec)
					if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != typ {
						continue
					}
					for _, v := range vs.Values {
						if lit, ok := v.(*ast.BasicLit); ok {
							s, _ := strconv.Unquote(lit.Value)
							out = append(out, s)
						}
					}
				}
			}
		}
	}
	return out
}
