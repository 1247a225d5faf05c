package cli

import (
	"flag"
	"fmt"
	"io"

	"vroom/app/config"
)

// commandFlags is the flag set of a vroom subcommand (name is "vroom run"
// and so on): parse errors go to stderr, and -h prints usage, then the
// flags.
func commandFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
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
