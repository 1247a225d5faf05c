package agents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// How long the wait tool waits: by default, and at most (TOOLS.md).
const (
	waitDefault = 10 * time.Second
	waitMax     = 30 * time.Second
)

// verdict is the first line of an action's result. The tab's summary is
// kept, except that "no visible effect" is never said of an action after
// which the page changed: the diff is evidence too, and a model that
// believes a false "no effect" repeats the action (and buys three mugs).
func verdict(shown Action, o Outcome, effect bool) string {
	line := o.Summary
	switch {
	case line == "" && effect:
		line = shown.String()
	case line == "":
		line = shown.String() + ": " + NoEffect
	case effect && strings.Contains(line, NoEffect):
		line = strings.Replace(line, NoEffect, "the page changed (see below)", 1)
	}
	if o.Pending > 0 && !strings.Contains(line, "still loading") {
		line += fmt.Sprintf("; still loading (%d requests)", o.Pending)
	}
	return line
}

// diffsSinceView counts the diffs in the prompt since the latest whole
// view of the page (a full observation).
func (e *executor) diffsSinceView() int {
	n := 0
	for i := len(e.hist) - 1; i >= 0; i-- {
		switch e.hist[i].kind {
		case fullObsMsg:
			return n
		case diffMsg:
			n++
		}
	}
	return n
}

// pageNow keeps what the page holds now in the prompt. Only the last few
// diffs stay whole; when this one would push the oldest diff since the
// latest full view out, a control that appeared in it (a Save button
// after the first keystroke) would vanish from the model's reach. So the
// result then also carries the page as it is now, which becomes the new
// full view: the prompt always holds a whole view plus every diff since,
// at a bounded size (two views, three diffs). What lies beyond the view's
// frontier is one observe call away.
func (e *executor) pageNow(ctx context.Context, body string, kind msgKind) (string, msgKind) {
	if kind != diffMsg || e.diffsSinceView() < keepWhole[diffMsg] {
		return body, kind
	}
	obs, err := e.tab.Observe(ctx)
	if err != nil {
		return body, kind
	}
	e.r.log.Write(LogRecord{Event: LogObserve, Agent: e.name, PID: e.pid, URL: obs.URL, Bytes: len(obs.Text)})
	return body + "\npage now (your earlier views of it are out of date):\n" + fence(obs.URL, obs.Text), fullObsMsg
}

// findOptions turns observe's arguments into the tab's options.
func findOptions(x observeArgs) (FindOptions, error) {
	if x.Limit < 0 {
		return FindOptions{}, errors.New("observe's limit must be positive")
	}
	o := FindOptions{Query: strings.TrimSpace(x.Query), Within: strings.TrimSpace(x.Within), Limit: x.Limit}
	for _, r := range x.Roles {
		if r = strings.TrimSpace(r); r != "" {
			o.Roles = append(o.Roles, r)
		}
	}
	return o, nil
}

// describeFind names what observe looked for, for its result line.
func describeFind(o FindOptions) string {
	var parts []string
	if o.Query != "" {
		parts = append(parts, fmt.Sprintf("matching %q", o.Query))
	}
	if len(o.Roles) > 0 {
		parts = append(parts, "with roles "+strings.Join(o.Roles, ","))
	}
	if o.Within != "" {
		parts = append(parts, "within "+o.Within)
	}
	if len(parts) == 0 {
		return "observed the page"
	}
	return "observed the controls " + strings.Join(parts, ", ") + " over the whole page (in view first)"
}

// observe is the executor's observe tool: the page again, whole or
// narrowed to a query, roles or a subtree.
func (e *executor) observe(ctx context.Context, tc toolCall) toolOut {
	var x observeArgs
	if err := decodeArgs(tc.Name, tc.Args, &x); err != nil {
		return toolOut{malformed: true, text: "error: " + err.Error()}
	}
	opts, err := findOptions(x)
	if err != nil {
		return toolOut{malformed: true, text: "error: " + err.Error()}
	}
	skip, release, err := e.useTab(ctx, "observe")
	if err != nil {
		return toolOut{text: "error: " + err.Error()}
	}
	if skip != nil {
		return *skip
	}
	defer release()
	var obs Observation
	if opts.Narrowed() || opts.Limit > 0 {
		obs, err = e.tab.Find(ctx, opts)
	} else {
		obs, err = e.tab.Observe(ctx)
	}
	if err != nil {
		return toolOut{text: "error: observe: " + err.Error()}
	}
	line := describeFind(opts)
	e.r.log.Write(LogRecord{Event: LogObserve, Agent: e.name, PID: e.pid, URL: obs.URL, Bytes: len(obs.Text)})
	e.logStep(tc, tc.Args, line, true, obs.URL, len(obs.Text))
	kind := fullObsMsg
	if opts.Narrowed() {
		kind = foundMsg
	}
	return toolOut{text: line + ":\n" + fence(obs.URL, obs.Text), kind: kind}
}

// waitFor turns wait's arguments into the condition and its timeout.
func waitFor(x pageWaitArgs) (WaitFor, time.Duration, error) {
	if x.TimeoutS < 0 {
		return WaitFor{}, 0, errors.New("wait's timeout_s must be positive")
	}
	timeout := time.Duration(x.TimeoutS * float64(time.Second))
	switch {
	case timeout == 0:
		timeout = waitDefault
	case timeout > waitMax:
		timeout = waitMax
	}
	return WaitFor{Text: x.Text, Gone: x.Gone, URL: x.URL, Query: x.Query}, timeout, nil
}

// notMet says honestly what did not happen in time.
func notMet(w WaitFor, c RoomCond, pending int) string {
	parts := w.clauses(`text %q did not appear`, `text %q is still there`, `the URL does not contain %q`, `no control matches %q`)
	if c.Heard != "" {
		parts = append(parts, fmt.Sprintf("nobody said %q", c.Heard))
	}
	if c.FloorFree {
		parts = append(parts, "the floor stayed taken")
	}
	if len(parts) == 0 {
		parts = append(parts, "the page did not become idle")
	}
	s := strings.Join(parts, "; ")
	if pending > 0 {
		s += fmt.Sprintf(" (still loading: %d requests)", pending)
	}
	return s
}

func seconds(d time.Duration) string {
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// waitPage is the executor's wait tool. The tab is not held while it
// waits: a wait touches nothing, and the person taking the tab over must
// not wait up to 30 s for it. A correction from the person cuts it short,
// as it cuts a model call or the planner's wait: they may have just told
// the agent to stop waiting.
func (e *executor) waitPage(ctx context.Context, tc toolCall) toolOut {
	var x pageWaitArgs
	if err := decodeArgs(tc.Name, tc.Args, &x); err != nil {
		return toolOut{malformed: true, text: "error: " + err.Error()}
	}
	w, timeout, err := waitFor(x)
	if err != nil {
		return toolOut{malformed: true, text: "error: " + err.Error()}
	}
	room := RoomCond{Heard: strings.TrimSpace(x.Heard), FloorFree: x.FloorFree}
	skip, release, err := e.useTab(ctx, "wait")
	if err != nil {
		return toolOut{text: "error: " + err.Error()}
	}
	if skip != nil {
		return *skip
	}
	release()
	interrupt := e.r.room.nextCorrection()
	wctx, cancel := context.WithCancel(ctx)
	var corrected atomic.Bool
	go func() {
		select {
		case <-interrupt:
			corrected.Store(true)
			cancel()
		case <-wctx.Done():
		}
	}()
	began := time.Now()
	res, heard, err := e.awaitEither(wctx, w, room, timeout)
	cancel()
	var line string
	switch {
	case ctx.Err() != nil:
		return toolOut{text: "error: wait: " + context.Cause(ctx).Error()}
	case corrected.Load():
		line = fmt.Sprintf("wait cut short after %s: the user said something; read their correction below", seconds(time.Since(began)))
	case heard != "":
		line = fmt.Sprintf("waited %s until %s", seconds(time.Since(began)), heard)
	case err != nil:
		return toolOut{text: "error: wait: " + err.Error()}
	case res.Met:
		line = fmt.Sprintf("waited %s until %s", seconds(res.Took), w)
		if strings.Contains(w.String(), " or ") && res.Condition != "" {
			line += " (" + res.Condition + ")"
		}
	default:
		line = fmt.Sprintf("timed out after %s: %s", seconds(timeout), notMet(w, room, res.Pending))
	}
	return e.waited(ctx, tc, line)
}

// awaitEither waits for the page's condition w and the room's condition
// c, whichever holds first, within timeout: heard says what held in the
// room. With only a room condition the page is not waited on (an empty w
// would wait for the page to be idle).
func (e *executor) awaitEither(ctx context.Context, w WaitFor, c RoomCond, timeout time.Duration) (res WaitOutcome, heard string, err error) {
	if !c.Set() {
		res, err = e.tab.Wait(ctx, w, timeout)
		return res, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	inRoom := make(chan string, 1)
	go func() {
		if met, err := e.r.room.await(ctx, e.name, c); err == nil {
			inRoom <- met
			cancel()
		}
	}()
	if w == (WaitFor{}) {
		<-ctx.Done()
	} else {
		res, err = e.tab.Wait(ctx, w, timeout)
	}
	select {
	case met := <-inRoom:
		return WaitOutcome{}, met, nil
	default:
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			err = nil // the bound ran out, reported as not met
		}
		return res, "", err
	}
}

// waited finishes a wait's result with what changed since the agent's
// last look. It only reads the page, so it needs no hold: a take-over
// meanwhile is handed back before the next model call (heldTurn).
func (e *executor) waited(ctx context.Context, tc toolCall, line string) toolOut {
	u := e.tab.Info().URL
	body, kind, changed := e.changes(ctx, Outcome{URL: u})
	body, kind = e.pageNow(ctx, body, kind)
	e.logStep(tc, tc.Args, line, changed, u, len(body))
	return toolOut{text: line + "\n" + body, kind: kind}
}
