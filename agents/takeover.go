package agents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// Take-over errors.
var (
	// ErrNotTakenOver is returned by HandBack for an executor the person
	// does not hold.
	ErrNotTakenOver = errors.New("the agent's tab is not taken over")
)

// hold pauses one executor while the person drives its tab. The executor
// enters it around everything that touches the tab; TakeOver waits for the
// action in progress, if any, so the person never types into a page the
// agent is still changing.
type hold struct {
	mu      sync.Mutex
	paused  bool
	resume  chan struct{} // closed at hand-back
	acting  bool
	idle    chan struct{} // closed when the action in progress ends
	note    string        // the hand-back note, until delivered
	pending bool          // a hand-back the model has not been told of
	takes   int           // take-overs so far: an action decided before the last one is stale
}

// enter waits while the tab is taken over and then marks the executor as
// acting; leave must follow. since is the take-over count when the agent's
// turn began: if the person has taken the tab since (even if already handed
// back), stale is set, because what the agent was about to do was decided
// on a page the person may have changed. It returns the count now.
func (h *hold) enter(ctx context.Context, since int) (stale bool, takes int, err error) {
	for {
		h.mu.Lock()
		if !h.paused {
			h.acting = true
			h.idle = make(chan struct{})
			takes = h.takes
			h.mu.Unlock()
			return takes != since, takes, nil
		}
		ch := h.resume
		h.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return false, since, context.Cause(ctx)
		}
	}
}

func (h *hold) leave() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.acting {
		h.acting = false
		close(h.idle)
	}
}

// delivered returns the hand-back note not yet given to the model, once.
func (h *hold) delivered() (note string, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.pending {
		return "", false
	}
	note, h.pending, h.note = h.note, false, ""
	return note, true
}

// TakeOver pauses executor pid so the person can drive its tab: it returns
// once the action in progress (if any) has ended, and the executor neither
// calls the model nor touches the tab until HandBack. The tab stays leased
// to the executor, so no other agent can take it meanwhile.
func (r *Run) TakeOver(ctx context.Context, pid int) (ProcInfo, error) {
	p, err := r.procs.get(pid)
	if err != nil {
		return ProcInfo{}, fmt.Errorf("take over %d: %w", pid, err)
	}
	h := p.hold
	h.mu.Lock()
	if h.paused {
		h.mu.Unlock()
		return r.info(p), nil
	}
	h.paused = true
	h.takes++
	h.resume = make(chan struct{})
	acting, idle := h.acting, h.idle
	h.mu.Unlock()
	r.procs.update(p, func(i *ProcInfo) { p.resumeTo, i.State = i.State, ProcTakenOver })
	if acting {
		select {
		case <-idle:
		case <-ctx.Done():
			r.handBack(p, "")
			return ProcInfo{}, fmt.Errorf("take over %d: waiting for its action to end: %w", pid, ctx.Err())
		case <-p.done:
		}
	}
	info := r.info(p)
	if info.State.Finished() {
		return info, fmt.Errorf("take over %d: %w: it has %s", pid, ErrNoProcess, info.State)
	}
	r.log.Write(LogRecord{Event: LogTakeOver, Agent: info.Agent, PID: pid, Tab: info.Tab})
	r.room.Notice("you took over %s's tab; it waits until you hand it back", info.Agent)
	return info, nil
}

// HandBack resumes executor pid after TakeOver. note, if any, reaches its
// next tool result as an instruction from the person, with a fresh view of
// the tab (the person may have changed anything in it).
func (r *Run) HandBack(pid int, note string) (ProcInfo, error) {
	p, err := r.procs.get(pid)
	if err != nil {
		return ProcInfo{}, fmt.Errorf("hand back %d: %w", pid, err)
	}
	note = strings.TrimSpace(note)
	if !r.handBack(p, note) {
		return ProcInfo{}, fmt.Errorf("hand back %d: %w", pid, ErrNotTakenOver)
	}
	info := r.info(p)
	r.log.Write(LogRecord{Event: LogHandBack, Agent: info.Agent, PID: pid, Tab: info.Tab, Text: note})
	if note != "" {
		r.room.Notice("you handed %s its tab back: %s", info.Agent, note)
	} else {
		r.room.Notice("you handed %s its tab back", info.Agent)
	}
	return info, nil
}

func (r *Run) handBack(p *proc, note string) bool {
	h := p.hold
	h.mu.Lock()
	if !h.paused {
		h.mu.Unlock()
		return false
	}
	h.paused = false
	h.note, h.pending = note, true
	close(h.resume)
	h.mu.Unlock()
	r.procs.update(p, func(i *ProcInfo) {
		if i.State == ProcTakenOver {
			i.State = p.resumeTo
		}
	})
	return true
}

// handedBack is what the executor tells the model after a take-over: the
// person's note, marked as theirs, and what the tab shows now.
func (e *executor) handedBack(ctx context.Context, note string) string {
	var b strings.Builder
	b.WriteString("The user took over your tab and has handed it back")
	if note != "" {
		b.WriteString(". Their note:\n<user_correction>\n" + note + "\n</user_correction>")
	} else {
		b.WriteString(" without a note")
	}
	b.WriteString("\nThey may have changed anything on the page, and it may have re-laid out (its viewport was fitted to their view while they drove it, and is restored now): act on this view, not on earlier refs or coordinates.\n")
	obs, err := e.tab.Observe(ctx)
	if err != nil {
		b.WriteString("(could not observe the tab: " + err.Error() + ")")
	} else {
		b.WriteString(fence(obs.URL, obs.Text))
	}
	return b.String()
}

// heldTurn holds the executor while its tab is taken over, before it
// spends a model call on a page the person is changing. The hand-back
// joins the last tool result, which the model has not read yet.
func (e *executor) heldTurn(ctx context.Context) error {
	_, takes, err := e.proc.hold.enter(ctx, e.takes)
	if err != nil {
		return err
	}
	e.proc.hold.leave()
	e.takes = takes
	note, ok := e.proc.hold.delivered()
	if !ok {
		return nil
	}
	text := e.handedBack(ctx, note)
	if n := len(e.hist); n > 0 && e.hist[n-1].m.Role == openai.ChatMessageRoleTool {
		last := &e.hist[n-1]
		last.m.Content += "\n\n" + text
		last.kind = fullObsMsg
		last.short += "\n[the user took over your tab and handed it back: " + clip(note, 200) + "]"
		return nil
	}
	e.add(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: text}, fullObsMsg,
		"[the user took over your tab and handed it back: "+clip(note, 200)+"]")
	return nil
}

// useTab enters the hold around an action on the tab. If the person took
// the tab over while the model was deciding, the action is not performed:
// it was chosen for a page that may no longer exist, so the result is the
// hand-back (the note and a fresh view) instead, and skipped is set.
func (e *executor) useTab(ctx context.Context, what string) (skipped *toolOut, release func(), err error) {
	stale, takes, err := e.proc.hold.enter(ctx, e.takes)
	if err != nil {
		return nil, nil, err
	}
	if !stale {
		return nil, e.proc.hold.leave, nil
	}
	e.proc.hold.leave()
	e.takes = takes
	note, _ := e.proc.hold.delivered()
	e.r.log.Write(LogRecord{Event: LogSkipped, Agent: e.name, PID: e.pid, Step: e.steps, Text: what + ": the user took over the tab before it ran"})
	out := toolOut{
		text:  "not performed: " + what + " was not run, because the user took over your tab before it ran.\n" + e.handedBack(ctx, note),
		short: "not performed: the user took over your tab before " + what + " ran; they handed it back: " + clip(note, 200),
		kind:  fullObsMsg,
		stop:  true, // the turn's other calls are as stale as this one
	}
	return &out, nil, nil
}
