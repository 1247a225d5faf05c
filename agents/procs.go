package agents

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// ProcState is an executor's state in the process table.
type ProcState string

// Process states.
const (
	ProcRunning ProcState = "running"
	// ProcWaiting is an executor waiting for the person: a confirmation
	// or an ask_user card.
	ProcWaiting ProcState = "waiting-for-user"
	// ProcTakenOver is an executor paused while the person drives its
	// tab; HandBack resumes it.
	ProcTakenOver ProcState = "taken-over"
	ProcDone      ProcState = "done"
	ProcFailed    ProcState = "failed"
	ProcKilled    ProcState = "killed"
)

// Finished reports whether the state is final.
func (s ProcState) Finished() bool { return s == ProcDone || s == ProcFailed || s == ProcKilled }

// ProcInfo describes one executor.
type ProcInfo struct {
	PID     int       `json:"pid"`
	Agent   string    `json:"agent"`
	Task    string    `json:"task"`
	State   ProcState `json:"state"`
	Tab     string    `json:"tab,omitempty"`
	Steps   int       `json:"steps"`
	Usage   Usage     `json:"usage"`
	Summary string    `json:"summary,omitempty"`
	Success bool      `json:"success"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
}

// Process table errors.
var (
	ErrTooManyAgents = errors.New("too many executors running")
	ErrSpawnLimit    = errors.New("spawn limit reached")
	ErrNoProcess     = errors.New("no such process")
)

type proc struct {
	info     ProcInfo
	cancel   context.CancelFunc
	done     chan struct{}
	reported bool          // the planner has seen its result
	exited   chan struct{} // closed once its executor has stopped and released its tab
	hold     *hold
	resumeTo ProcState // the state a taken-over process returns to; guarded by procTable.mu
}

// procTable is a run's executors, addressed by PID.
type procTable struct {
	maxRunning int
	maxSpawns  int
	clock      Clock
	onChange   func(ProcInfo)

	mu      sync.Mutex
	procs   map[int]*proc
	next    int
	changed chan struct{} // closed and replaced at every finish
}

func newProcTable(maxRunning, maxSpawns int, clock Clock, onChange func(ProcInfo)) *procTable {
	return &procTable{maxRunning: maxRunning, maxSpawns: maxSpawns, clock: clock, onChange: onChange,
		procs: map[int]*proc{}, changed: make(chan struct{})}
}

// add registers a new running process, within the limits; one that
// replaces a running process is not held to the running limit. tab is the
// existing tab it will work in ("" for a new one, known once opened), set
// at once so a later spawn there waits for this one's release.
func (t *procTable) add(task, tab string, cancel context.CancelFunc, replacing bool) (*proc, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	running := 0
	for _, p := range t.procs {
		if !p.info.State.Finished() {
			running++
		}
	}
	if running >= t.maxRunning && !replacing {
		return nil, fmt.Errorf("spawn: %w: %d of %d; wait for one to finish first", ErrTooManyAgents, running, t.maxRunning)
	}
	if t.next >= t.maxSpawns {
		return nil, fmt.Errorf("spawn: %w: %d executors this run", ErrSpawnLimit, t.maxSpawns)
	}
	t.next++
	p := &proc{
		info:   ProcInfo{PID: t.next, Agent: fmt.Sprintf("agent %d", t.next), Task: task, Tab: tab, State: ProcRunning, Started: t.clock.Now()},
		cancel: cancel,
		done:   make(chan struct{}),
		exited: make(chan struct{}),
		hold:   &hold{},
	}
	t.procs[p.info.PID] = p
	t.notify(p)
	return p, nil
}

// get returns a live process.
func (t *procTable) get(pid int) (*proc, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.procs[pid]
	if !ok {
		return nil, ErrNoProcess
	}
	if p.info.State.Finished() {
		return nil, fmt.Errorf("%w: it has %s", ErrNoProcess, p.info.State)
	}
	return p, nil
}

// awaitRelease waits until every finished process that worked in tab has
// released it: a process is reported finished (killed, failed) before its
// executor has unwound, and a retry in the same tab must not find it
// still leased.
func (t *procTable) awaitRelease(ctx context.Context, tab string) error {
	t.mu.Lock()
	var wait []chan struct{}
	for _, p := range t.procs {
		if p.info.Tab == tab && p.info.State.Finished() {
			wait = append(wait, p.exited)
		}
	}
	t.mu.Unlock()
	for _, ch := range wait {
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// unreported returns the PIDs whose results the planner has not seen.
func (t *procTable) unreported() []int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.unreportedLocked()
}

func (t *procTable) unreportedLocked() []int {
	var pids []int
	for pid, p := range t.procs {
		if !p.reported {
			pids = append(pids, pid)
		}
	}
	sort.Ints(pids)
	return pids
}

// notify publishes p's state; t.mu is held.
func (t *procTable) notify(p *proc) {
	if t.onChange != nil {
		t.onChange(p.info)
	}
}

// update changes a live process's info.
func (t *procTable) update(p *proc, f func(*ProcInfo)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p.info.State.Finished() {
		return
	}
	f(&p.info)
	t.notify(p)
}

// account records a process's steps and tokens, finished or not.
func (t *procTable) account(p *proc, steps int, u Usage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p.info.Steps, p.info.Usage = steps, u
	t.notify(p)
}

// finish records a process's result; the first final state wins, so a
// kill is not overwritten by the failure it causes.
func (t *procTable) finish(p *proc, state ProcState, summary string, success bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p.info.State.Finished() {
		return
	}
	p.info.State = state
	p.info.Summary = summary
	p.info.Success = success && state == ProcDone
	p.info.Ended = t.clock.Now()
	close(p.done)
	close(t.changed)
	t.changed = make(chan struct{})
	t.notify(p)
}

// kill stops a process.
func (t *procTable) kill(pid int) error {
	t.mu.Lock()
	p, ok := t.procs[pid]
	t.mu.Unlock()
	if !ok {
		return fmt.Errorf("kill %d: %w", pid, ErrNoProcess)
	}
	t.finish(p, ProcKilled, "killed by the planner", false)
	p.cancel()
	return nil
}

// killAll stops every process (the kill switch).
func (t *procTable) killAll(why string) {
	t.mu.Lock()
	ps := make([]*proc, 0, len(t.procs))
	for _, p := range t.procs {
		ps = append(ps, p)
	}
	t.mu.Unlock()
	for _, p := range ps {
		t.finish(p, ProcKilled, why, false)
		p.cancel()
	}
}

// list returns every process's info, by PID.
func (t *procTable) list() []ProcInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]ProcInfo, 0, len(t.procs))
	for _, p := range t.procs {
		out = append(out, p.info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}

// WaitResult is what wait returns to the planner.
type WaitResult struct {
	Finished []ProcInfo `json:"finished"`
	Running  []int      `json:"running,omitempty"`
	TimedOut bool       `json:"timed_out,omitempty"`
	// Interrupted is set when a user correction cut the wait short.
	Interrupted bool `json:"interrupted,omitempty"`
}

// wait blocks until any or all of pids finished (every unreported process
// when pids is empty), the timeout passes, interrupt closes, or ctx ends.
// Finished processes are reported once.
func (t *procTable) wait(ctx context.Context, pids []int, all bool, timeout time.Duration, interrupt <-chan struct{}) (WaitResult, error) {
	t.mu.Lock()
	if len(pids) == 0 {
		pids = t.unreportedLocked()
	}
	for _, pid := range pids {
		if _, ok := t.procs[pid]; !ok {
			t.mu.Unlock()
			return WaitResult{}, fmt.Errorf("wait %d: %w", pid, ErrNoProcess)
		}
	}
	t.mu.Unlock()

	var timedOut chan struct{}
	if timeout > 0 {
		timedOut = make(chan struct{})
		tm := t.clock.AfterFunc(timeout, func() { close(timedOut) })
		defer tm.Stop()
	}
	for {
		t.mu.Lock()
		var res WaitResult
		for _, pid := range pids {
			p := t.procs[pid]
			if p.info.State.Finished() {
				if !p.reported || all {
					res.Finished = append(res.Finished, p.info)
				}
			} else {
				res.Running = append(res.Running, pid)
			}
		}
		fresh := 0
		for _, pid := range pids {
			if p := t.procs[pid]; p.info.State.Finished() && !p.reported {
				fresh++
			}
		}
		ready := len(pids) == 0 || (all && len(res.Running) == 0) || (!all && fresh > 0) ||
			(!all && len(res.Running) == 0)
		changed := t.changed
		if ready {
			for _, f := range res.Finished {
				t.procs[f.PID].reported = true
			}
			t.mu.Unlock()
			return res, nil
		}
		t.mu.Unlock()
		select {
		case <-changed:
		case <-timedOut:
			res.TimedOut = true
			t.mark(res.Finished)
			return res, nil
		case <-interrupt:
			res.Interrupted = true
			t.mark(res.Finished)
			return res, nil
		case <-ctx.Done():
			return res, fmt.Errorf("wait: %w", ctx.Err())
		}
	}
}

func (t *procTable) mark(fs []ProcInfo) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, f := range fs {
		t.procs[f.PID].reported = true
	}
}
