package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// results is everything one run measured, by engine name.
type results struct {
	Engines   []string
	ToolChars map[string]int
	// Actions are milliseconds per call: action → engine → samples.
	Actions map[string]map[string][]float64
	// Obs are characters per observation: page → engine → characters.
	Obs   map[string]map[string]int
	Flows map[string]map[string]flowResult
	// Failures are the calls that failed, by engine, for the notes.
	Failures map[string][]string
	// Asked counts the questions each engine put to the client's user
	// (all approved).
	Asked map[string]int64
	Reps  int
	// Think is the pause before each timed action (-think).
	Think   time.Duration
	Started time.Time
	Took    time.Duration
	// Chromium is the browser's version.
	Chromium string
	// Load is the load average at the start and at the end.
	Load, LoadEnd string
}

// actions are the timed actions, in the table's order.
func actions() []string {
	return []string{"open", openAndLook, "click", "type", typeFirst, typeNext, openThenType, "select"}
}

// openAndLook is the time from the open's call until the model has the
// page's controls: the open alone where its reply shows them, else the
// open and the look after it.
const openAndLook = "open, then the page in hand"

// The types apart: the first after an open meets the renderer still
// drawing the new page, which an open that answers sooner leaves to it;
// openThenType is the two together, from the open's call until the
// first field holds its text.
const (
	typeFirst    = "type, the first after the open"
	typeNext     = "type, the next"
	openThenType = "open, then the page in hand, then the first type"
)

// Roles by which each engine names the controls the benchmark uses.
var (
	textboxRoles = []string{"textbox", "input", "searchbox"}
	buttonRoles  = []string{"button"}
	selectRoles  = []string{"combobox", "select", "listbox"}
	linkRoles    = []string{"link"}
)

// countries are the select page's options, chosen in turn so that every
// select changes the value.
func countries() []string {
	return strings.Fields("Argentina Brazil Canada Denmark Egypt France Germany Japan Kenya Mexico Norway Portugal")
}

// measure runs the repetitions, interleaved: in every repetition each
// engine in turn (starting one further along each time) does the same
// actions; the observations and flows are taken once, in the first.
func measure(ctx context.Context, o options, engines []engine, base string, logf func(string, ...any)) (*results, error) {
	res := &results{
		ToolChars: map[string]int{}, Actions: map[string]map[string][]float64{},
		Obs: map[string]map[string]int{}, Flows: map[string]map[string]flowResult{},
		Failures: map[string][]string{}, Asked: map[string]int64{}, Reps: o.Reps, Think: o.Think, Started: time.Now(), Load: loadAverage(),
	}
	for _, e := range engines {
		res.Engines = append(res.Engines, e.Name())
		res.ToolChars[e.Name()] = e.ToolChars()
	}
	for rep := 0; rep < o.Reps; rep++ {
		for i := range engines {
			e := engines[(i+rep)%len(engines)]
			logf("repetition %d/%d: %s", rep+1, o.Reps, e.Name())
			if rep == 0 {
				res.observe(ctx, e, base)
				res.flows(ctx, e, base)
			}
			if err := res.actionRound(ctx, e, base, rep); err != nil {
				res.fail(e, "actions", err)
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
	}
	res.Took, res.LoadEnd = time.Since(res.Started), loadAverage()
	for _, e := range engines {
		if c := connOf(e); c != nil {
			res.Asked[e.Name()] = c.asked.Load()
		}
	}
	return res, nil
}

// fail notes a failure of what an engine was doing.
func (res *results) fail(e engine, what string, err error) {
	res.Failures[e.Name()] = append(res.Failures[e.Name()], what+": "+clip(err.Error(), 200))
}

// record keeps an action's time.
func (res *results) record(e engine, action string, r reply) {
	m := res.Actions[action]
	if m == nil {
		m = map[string][]float64{}
		res.Actions[action] = m
	}
	m[e.Name()] = append(m[e.Name()], float64(r.Took.Microseconds())/1000)
}

// look is the page's controls as the engine shows them after open: the
// open's own result when it holds the control wanted, else an observation.
// It records the open's time and, as openAndLook, the two together.
// inHand is the openAndLook time.
func (res *results) look(ctx context.Context, e engine, opened reply, roles []string, name string) (text string, inHand time.Duration, err error) {
	res.record(e, "open", opened)
	if e.Ref(opened.Text, roles, name) != "" {
		res.record(e, openAndLook, opened)
		return opened.Text, opened.Took, nil
	}
	r, err := e.Observe(ctx)
	if err == nil {
		res.record(e, openAndLook, reply{Took: opened.Took + r.Took})
	}
	return r.Text, opened.Took + r.Took, err
}

// think waits the pause before a timed action, or for ctx's end.
func (res *results) think(ctx context.Context) error {
	if res.Think <= 0 {
		return nil
	}
	t := time.NewTimer(res.Think)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// refs finds the refs of named controls in obs, or says which is missing.
func refs(e engine, obs string, want ...control) ([]string, error) {
	out := make([]string, len(want))
	for i, c := range want {
		if out[i] = e.Ref(obs, c.roles, c.name); out[i] == "" {
			return nil, fmt.Errorf("no ref for %s %q in:\n%s", c.roles[0], c.name, clip(obs, 1500))
		}
	}
	return out, nil
}

// control is a control looked for by role and name.
type control struct {
	roles []string
	name  string
}

// actionRound is one repetition's timed actions for one engine: open the
// login form and type into both fields, then open the select page and
// three times choose a country and apply it.
func (res *results) actionRound(ctx context.Context, e engine, base string, rep int) error {
	// A page a failed round leaves open is replaced by the next open.
	defer func() { _ = e.Done(context.WithoutCancel(ctx)) }()
	if err := res.think(ctx); err != nil {
		return err
	}
	r, err := e.Open(ctx, base+"/login.html")
	if err != nil {
		return err
	}
	obs, inHand, err := res.look(ctx, e, r, textboxRoles, "Username")
	if err != nil {
		return err
	}
	ids, err := refs(e, obs, control{textboxRoles, "Username"}, control{textboxRoles, "Password"})
	if err != nil {
		return err
	}
	for i, text := range []string{"ada", "correct horse"} {
		if err := res.think(ctx); err != nil {
			return err
		}
		if r, err = e.Type(ctx, ids[i], text); err != nil {
			return err
		}
		res.record(e, "type", r)
		if i == 0 {
			res.record(e, typeFirst, r)
			res.record(e, openThenType, reply{Took: inHand + r.Took})
		} else {
			res.record(e, typeNext, r)
		}
	}
	if err := e.Done(ctx); err != nil {
		return err
	}
	if err := res.think(ctx); err != nil {
		return err
	}
	if r, err = e.Open(ctx, base+"/select.html"); err != nil {
		return err
	}
	if obs, _, err = res.look(ctx, e, r, selectRoles, "Country"); err != nil {
		return err
	}
	if ids, err = refs(e, obs, control{selectRoles, "Country"}, control{buttonRoles, "Apply"}); err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
		c := countries()[(rep*3+i+1)%len(countries())]
		if err := res.think(ctx); err != nil {
			return err
		}
		if r, err = e.Select(ctx, ids[0], c); err != nil {
			return err
		}
		res.record(e, "select", r)
		if err := res.think(ctx); err != nil {
			return err
		}
		if r, err = e.Click(ctx, ids[1]); err != nil {
			return err
		}
		res.record(e, "click", r)
	}
	return nil
}

// observe measures the engine's observation of every fixture page.
func (res *results) observe(ctx context.Context, e engine, base string) {
	for _, f := range fixtures() {
		if _, err := e.Open(ctx, base+f.Path); err != nil {
			res.fail(e, "open "+f.Path, err)
			continue
		}
		r, err := e.Observe(ctx)
		if err != nil {
			res.fail(e, "observe "+f.Path, err)
		} else {
			m := res.Obs[f.Name]
			if m == nil {
				m = map[string]int{}
				res.Obs[f.Name] = m
			}
			m[e.Name()] = r.chars()
		}
		if err := e.Done(ctx); err != nil {
			res.fail(e, "done "+f.Path, err)
		}
	}
}
