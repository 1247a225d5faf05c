package cli

import (
	"flag"
	"fmt"
	"io"

	"vroom/app/config"
)

// commandFlags is the flag set of a vroom subcommand (name is "vroom run"
// and so on): -h prints usage, then the flags, on stderr. A parse error
// prints nothing here: the command says it in one line, and where the
// rest is (badUsage), rather than the whole usage after it.
func commandFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	parseErr := &wroteTo{}
	fs.SetOutput(parseErr)
	fs.Usage = func() {
		// The flag package calls Usage after writing a parse error, and
		// alone for -h: only -h gets the usage.
		if parseErr.wrote {
			return
		}
		fmt.Fprint(stderr, usage)
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		fs.SetOutput(parseErr)
	}
	return fs
}

// wroteTo discards what the flag package writes and remembers that it did.
type wroteTo struct{ wrote bool }

func (w *wroteTo) Write(p []byte) (int, error) {
	w.wrote = true
	return len(p), nil
}

// badUsage says on stderr what was wrong with a command line (name is
// "vroom run" and so on), and where the usage is, in two short lines; the
// exit status is 2.
func badUsage(stderr io.Writer, name string, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n%s -h for more\n", name, err, name)
	return 2
}

// modelFlags adds --base-url, --model and --planner-model over st's
// values, into baseURL, executor and planner: the model server of a
// command that only points at one (vroom doctor, vroom mcp). vroom run
// explains each at more length.
func modelFlags(fs *flag.FlagSet, st config.Settings, baseURL, executor, planner *string) {
	fs.StringVar(baseURL, "base-url", st.BaseURL, "OpenAI-compatible API base URL")
	fs.StringVar(executor, "model", st.ExecutorModel, "model of the executors")
	fs.StringVar(planner, "planner-model", st.PlannerModel, "model of the planner")
}
