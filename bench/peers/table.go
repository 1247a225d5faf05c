package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// quantile is the q-th quantile of sorted samples, interpolated between
// the two nearest.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}

// spread is "median [p25–p75]" of samples in milliseconds, rounded.
func spread(samples []float64) string {
	if len(samples) == 0 {
		return "—"
	}
	s := append([]float64(nil), samples...)
	sort.Float64s(s)
	r := func(v float64) string { return strconv.Itoa(int(math.Round(v))) }
	return fmt.Sprintf("%s [%s–%s]", r(quantile(s, 0.5)), r(quantile(s, 0.25)), r(quantile(s, 0.75)))
}

// thousands writes n with commas: 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// rows is the table: a header row, then section titles (one cell) and
// rows of one cell per engine after the label.
func (res *results) rows() [][]string {
	out := [][]string{append([]string{""}, res.Engines...)}
	section := func(title string) { out = append(out, []string{title}) }
	row := func(label string, cell func(engine string) string) {
		r := []string{label}
		for _, e := range res.Engines {
			r = append(r, cell(e))
		}
		out = append(out, r)
	}
	paced := ""
	if res.Think > 0 {
		paced = fmt.Sprintf(", each %v after the reply before it", res.Think)
	}
	section(fmt.Sprintf("ms per action, median [p25–p75] of %d repetitions%s", res.Reps, paced))
	for _, a := range actions() {
		row(a, func(e string) string { return spread(res.Actions[a][e]) })
	}
	section("characters per observation")
	for _, f := range fixtures() {
		row(f.Name, func(e string) string {
			if n, ok := res.Obs[f.Name][e]; ok {
				return thousands(n)
			}
			return "failed"
		})
	}
	row("tool list", func(e string) string {
		if n := res.ToolChars[e]; n > 0 {
			return thousands(n)
		}
		return "— (CLI)"
	})
	section("flows: characters / calls, from the open")
	for _, s := range flowSpecs() {
		row(s.Name, func(e string) string { return flowCell(res.Flows[s.Name][e]) })
	}
	return out
}

// flowCell is "characters / calls", marked when the goal was not reached.
func flowCell(f flowResult) string {
	c := thousands(f.Chars) + " / " + strconv.Itoa(f.Calls)
	switch {
	case f.Err != "":
		return c + " (failed)"
	case !f.Reached:
		return c + " (not reached)"
	}
	return c
}

// writeTable writes the table, as text or Markdown, to -o or w.
func writeTable(o options, res *results, w io.Writer) error {
	if o.Out != "" {
		f, err := os.Create(o.Out)
		if err != nil {
			return fmt.Errorf("write the table: %w", err)
		}
		if err := res.write(o, f); err != nil {
			f.Close() // the write's error is the one to report
			return err
		}
		return f.Close()
	}
	return res.write(o, w)
}

func (res *results) write(o options, w io.Writer) error {
	var err error
	if o.Markdown {
		err = res.markdown(w)
	} else {
		err = res.text(w)
	}
	if err != nil {
		return fmt.Errorf("write the table: %w", err)
	}
	return nil
}

// header is the run's circumstances, one line.
func (res *results) header() string {
	return fmt.Sprintf("%s, %s, %d repetitions interleaved, %s, load average %s at the start, %s at the end",
		res.Started.UTC().Format("2006-01-02 15:04 UTC"), res.Chromium, res.Reps, res.Took.Round(1e9), res.Load, res.LoadEnd)
}

func (res *results) text(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, res.header())
	for _, r := range res.rows() {
		if len(r) == 1 {
			fmt.Fprintln(tw, "\n"+r[0])
			continue
		}
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return res.notes(w, "")
}

func (res *results) markdown(w io.Writer) error {
	fmt.Fprintf(w, "%s.\n\n", res.header())
	for i, r := range res.rows() {
		if len(r) == 1 {
			r = append([]string{"**" + r[0] + "**"}, make([]string, len(res.Engines))...)
		}
		fmt.Fprintln(w, "| "+strings.Join(r, " | ")+" |")
		if i == 0 {
			fmt.Fprintln(w, "|"+strings.Repeat("---|", len(r)))
		}
	}
	return res.notes(w, "- ")
}

// notes lists the questions engines asked the user and the calls that
// failed, so a figure missing from the table says why.
func (res *results) notes(w io.Writer, bullet string) error {
	for _, e := range res.Engines {
		if n := res.Asked[e]; n > 0 {
			fmt.Fprintf(w, "\n%s%s asked the client's user %s before an irreversible click (\"Pay now\"); the benchmark's client approves, as its user would, and these calls count once.\n", bullet, e, times(n))
		}
	}
	var lines []string
	for _, e := range res.Engines {
		for _, f := range res.Failures[e] {
			lines = append(lines, bullet+e+": "+strings.ReplaceAll(f, "\n", " "))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "\nFailures:\n%s\n", strings.Join(lines, "\n"))
	return err
}

// times is "once", "twice" or "n times".
func times(n int64) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return strconv.FormatInt(n, 10) + " times"
}

// loadAverage is the machine's 1-, 5- and 15-minute load, where known.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
