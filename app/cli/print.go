package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"vroom/agents"
)

// eventPrinter writes one line per event of a run: the time and the
// event in words, or the event as a JSON line.
type eventPrinter struct {
	w     io.Writer
	enc   *json.Encoder  // nil: lines in words
	procs map[int]string // pid → its last printed state and tab
	usage agents.Usage
}

func newEventPrinter(w io.Writer, asJSON bool) *eventPrinter {
	p := &eventPrinter{w: w, procs: map[int]string{}}
	if asJSON {
		p.enc = json.NewEncoder(w)
	}
	return p
}

// print writes e, or nothing when it only moves a meter a terminal does
// not show. A failed write (stdout closed) is returned: the run goes on,
// and its end is reported on stderr.
func (p *eventPrinter) print(e agents.Event) error {
	if p.enc != nil {
		if err := p.enc.Encode(e); err != nil {
			return fmt.Errorf("print event: %w", err)
		}
		return nil
	}
	switch d := e.Data.(type) {
	case agents.Usage:
		// The meter ticks at every model call: a terminal gets the total
		// at the end.
		p.usage = d
		return nil
	case agents.ProcInfo:
		k := string(d.State) + " " + d.Tab
		if p.procs[d.PID] == k {
			return nil // only its meters changed
		}
		p.procs[d.PID] = k
	case agents.RunInfo:
		if d.State != agents.RunStarted {
			if err := p.line(e.At, agents.Event{Kind: agents.EventUsage, Data: p.usage}); err != nil {
				return err
			}
		}
	}
	return p.line(e.At, e)
}

func (p *eventPrinter) line(at time.Time, e agents.Event) error {
	if _, err := fmt.Fprintf(p.w, "%s %s\n", at.Format("15:04:05.000"), agents.FormatEvent(e)); err != nil {
		return fmt.Errorf("print event: %w", err)
	}
	return nil
}
