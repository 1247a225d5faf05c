package main

import (
	"context"
	"errors"
	"strings"
)

// flowResult is what one flow cost an engine: the calls a careful model
// makes (look, act, check the effect) and the characters it reads, from
// the open to the goal in view.
type flowResult struct {
	Calls   int
	Chars   int
	Reached bool
	Err     string
}

// errNotReached says a flow ended without its goal in view.
var errNotReached = errors.New("not reached")

// flow is one flow's run on one engine: every call is counted, and goal
// is looked for in what the calls since the last action returned.
type flow struct {
	e     engine
	res   flowResult
	since strings.Builder
}

// add counts a call and keeps its text.
func (f *flow) add(r reply, err error) (reply, error) {
	f.res.Calls++
	f.res.Chars += r.chars()
	f.since.WriteString(r.Text)
	f.since.WriteString("\n")
	return r, err
}

// act counts an action: what it returns starts a new "since".
func (f *flow) act(r reply, err error) (reply, error) {
	f.since.Reset()
	return f.add(r, err)
}

// seen says whether goal is in what came back since the last action.
func (f *flow) seen(goal string) bool { return strings.Contains(normalize(f.since.String()), goal) }

// normalize folds runs of white space into one space, so text wrapped
// over lines still matches.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// confirm makes sure goal is in view after an action: the action's own
// result, else a look, else a wait for the text and a look.
func (f *flow) confirm(ctx context.Context, goal string) error {
	if f.seen(goal) {
		return nil
	}
	if _, err := f.add(f.e.Observe(ctx)); err != nil {
		return err
	}
	if f.seen(goal) {
		return nil
	}
	f.since.Reset()
	r, err := f.add(f.e.WaitText(ctx, goal))
	if err != nil {
		return err
	}
	if f.seen(goal) && !waitFailed(r.Text) {
		return nil
	}
	f.since.Reset()
	if _, err := f.add(f.e.Observe(ctx)); err != nil {
		return err
	}
	if !f.seen(goal) {
		return errNotReached
	}
	return nil
}

// waitFailed says whether a wait's reply says that what it waited for
// did not come (some engines say so in a result that is not an error, and
// name the text they waited for).
func waitFailed(text string) bool {
	t := strings.ToLower(text)
	for _, s := range []string{"did not happen", "timed out", "timeout", "not met"} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// open opens the page and returns the controls in view: the open's
// result when it holds want, else an observation.
func (f *flow) open(ctx context.Context, url string, want control) (string, error) {
	r, err := f.act(f.e.Open(ctx, url))
	if err != nil {
		return "", err
	}
	if f.e.Ref(r.Text, want.roles, want.name) != "" {
		return r.Text, nil
	}
	r, err = f.add(f.e.Observe(ctx))
	return r.Text, err
}

// flowSpec is a flow by name.
type flowSpec struct {
	Name string
	run  func(ctx context.Context, f *flow, base string) error
}

// flowSpecs are the flows, in the table's order.
func flowSpecs() []flowSpec {
	return []flowSpec{
		{"login (type, type, click, see the dashboard)", loginFlow},
		{`reach "Item 4321" of 5,000`, itemFlow},
		{"read the article's third paragraph", articleFlow},
		{`checkout: see "Order confirmed" (1.5 s)`, checkoutFlow},
		{"fetch: see the fares (600 ms)", fetchFlow},
		{"chat: type in an editor that keeps its own text, send, see it", composerFlow},
		{"filters: a dialog whose code loads on the click (400 ms)", lazyFlow},
	}
}

func loginFlow(ctx context.Context, f *flow, base string) error {
	obs, err := f.open(ctx, base+"/login.html", control{textboxRoles, "Username"})
	if err != nil {
		return err
	}
	ids, err := refs(f.e, obs, control{textboxRoles, "Username"}, control{textboxRoles, "Password"}, control{buttonRoles, "Sign in"})
	if err != nil {
		return err
	}
	if _, err := f.act(f.e.Type(ctx, ids[0], "ada")); err != nil {
		return err
	}
	if _, err := f.act(f.e.Type(ctx, ids[1], "correct horse")); err != nil {
		return err
	}
	if _, err := f.act(f.e.Click(ctx, ids[2])); err != nil {
		return err
	}
	return f.confirm(ctx, "Welcome, ada")
}

// itemFlow reaches one item of the list: its ref in view, from the open,
// through the engine's search if the open does not show it, else a look.
func itemFlow(ctx context.Context, f *flow, base string) error {
	item := control{linkRoles, "Item 4321"}
	r, err := f.act(f.e.Open(ctx, base+"/list.html"))
	if err != nil {
		return err
	}
	if f.e.Ref(r.Text, item.roles, item.name) != "" {
		return nil
	}
	r, ok, err := f.e.Find(ctx, item.name)
	if ok {
		if r, err = f.add(r, err); err != nil {
			return err
		}
		if f.e.Ref(r.Text, item.roles, item.name) != "" {
			return nil
		}
	}
	if r, err = f.add(f.e.Observe(ctx)); err != nil {
		return err
	}
	if f.e.Ref(r.Text, item.roles, item.name) != "" {
		return nil
	}
	return errNotReached
}

// The article's third paragraph: its opening words (what a model that
// saw its start would search for) and its last sentence (which is in view
// only when the whole paragraph is).
const (
	thirdOpening = "Bunching, as transport planners call it"
	thirdLast    = "persuading three hundred people a day that standing still was a way of moving faster."
)

// articleFlow reads the third paragraph whole: the open, a look, the
// engine's reading tool, then its search for the paragraph's opening.
func articleFlow(ctx context.Context, f *flow, base string) error {
	r, err := f.act(f.e.Open(ctx, base+"/article.html"))
	if err != nil || f.seen(thirdLast) {
		return err
	}
	if f.e.Ref(r.Text, buttonRoles, "Subscribe") == "" {
		if _, err := f.add(f.e.Observe(ctx)); err != nil || f.seen(thirdLast) {
			return err
		}
	}
	if r, ok, err := f.e.Read(ctx); ok {
		if _, err := f.add(r, err); err != nil || f.seen(thirdLast) {
			return err
		}
	}
	if r, ok, err := f.e.Find(ctx, thirdOpening); ok {
		if _, err := f.add(r, err); err != nil || f.seen(thirdLast) {
			return err
		}
	}
	return errNotReached
}

// lateFlow clicks a button whose effect comes late and confirms it.
func lateFlow(ctx context.Context, f *flow, url, button, goal string) error {
	obs, err := f.open(ctx, url, control{buttonRoles, button})
	if err != nil {
		return err
	}
	ids, err := refs(f.e, obs, control{buttonRoles, button})
	if err != nil {
		return err
	}
	if _, err := f.act(f.e.Click(ctx, ids[0])); err != nil {
		return err
	}
	return f.confirm(ctx, goal)
}

func checkoutFlow(ctx context.Context, f *flow, base string) error {
	return lateFlow(ctx, f, base+"/checkout.html", "Pay now", "Order confirmed")
}

func fetchFlow(ctx context.Context, f *flow, base string) error {
	return lateFlow(ctx, f, base+"/fetch.html", "Show fares", "Ryanair 11:15")
}

func lazyFlow(ctx context.Context, f *flow, base string) error {
	return lateFlow(ctx, f, base+"/lazy.html", "Filters", "Price range")
}

// composerFlow types a message into a chat composer whose editor keeps
// the text in a model of its own (it answers each edit's beforeinput and
// draws the box from the model), sends it and looks for it in the
// conversation. The type's reply is taken at its word, as a model takes
// it: only the sent message is the goal.
func composerFlow(ctx context.Context, f *flow, base string) error {
	box, send := control{textboxRoles, "Message"}, control{buttonRoles, "Send"}
	obs, err := f.open(ctx, base+"/composer.html", box)
	if err != nil {
		return err
	}
	ids, err := refs(f.e, obs, box, send)
	if err != nil {
		return err
	}
	if _, err := f.act(f.e.Type(ctx, ids[0], "on my way")); err != nil {
		return err
	}
	if _, err := f.act(f.e.Click(ctx, ids[1])); err != nil {
		return err
	}
	return f.confirm(ctx, "You: on my way")
}

// flows runs every flow on the engine.
func (res *results) flows(ctx context.Context, e engine, base string) {
	for _, s := range flowSpecs() {
		f := &flow{e: e}
		err := s.run(ctx, f, base)
		f.res.Reached = err == nil
		if err != nil && !errors.Is(err, errNotReached) {
			f.res.Err = clip(err.Error(), 200)
			res.fail(e, s.Name, err)
		}
		if err := e.Done(ctx); err != nil {
			res.fail(e, "done "+s.Name, err)
		}
		m := res.Flows[s.Name]
		if m == nil {
			m = map[string]flowResult{}
			res.Flows[s.Name] = m
		}
		m[e.Name()] = f.res
	}
}
