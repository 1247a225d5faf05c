package mcpserver

import (
	"strings"
	"sync"

	"vroom/agents"
	"vroom/app/runner"
	"vroom/browser"
)

// drivenTab is a tab the client drives. It owns its state and its lock;
// the server's lock only guards which tabs there are.
type drivenTab struct {
	// guard is the exfiltration guard over the tab (guard.go), which also
	// holds its sites: where it opened, and the hosts the user allowed.
	// The client observes and acts through it. It is set once, at open.
	guard *agents.TabGuard

	mu sync.Mutex
	// tab is the adapter leased to the client; a tab lent to a run is
	// leased again, as a new adapter, when the run gives it back.
	tab     *runner.Tab
	allowed map[string]bool // irreversible actions the user allowed for the tab's life
	lentTo  string          // the run holding the tab, while one does
	// call is the tool call acting in the tab, while one does: the guard
	// asks the user through it (over HTTP, on its stream).
	call *elicitor
	// told is the page line (title and URL) of the last observation of
	// the tab the client was sent whole.
	told string
}

func newDrivenTab(t *runner.Tab) *drivenTab {
	return &drivenTab{tab: t, allowed: map[string]bool{}}
}

// current is the adapter the client acts through now.
func (d *drivenTab) current() *runner.Tab {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.tab
}

// lent names the run holding the tab, "" while the client has it.
func (d *drivenTab) lent() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lentTo
}

// lend marks the tab as held by to.
func (d *drivenTab) lend(to string) {
	d.mu.Lock()
	d.lentTo = to
	d.mu.Unlock()
}

// takenBack makes t, leased to the client again, the tab's adapter.
func (d *drivenTab) takenBack(t *runner.Tab) {
	d.mu.Lock()
	// The run may have taken the tab anywhere: the client's next look
	// says where.
	d.tab, d.lentTo, d.told = t, "", ""
	d.mu.Unlock()
}

// brief is obs's text as the client is sent it: without its page line
// when the last observation the client was sent of the tab named the same
// page, unless always. The client's conversation holds that line; a
// title or address that changed is said again.
func (d *drivenTab) brief(obs agents.Observation, always bool) string {
	line := browser.PageLine(obs.Title, obs.URL)
	rest, whole := strings.CutPrefix(obs.Text, line)
	d.mu.Lock()
	same := d.told == line
	if whole {
		d.told = line
	}
	d.mu.Unlock()
	if whole && same && !always {
		return rest
	}
	return obs.Text
}

// asking is the tool call acting in the tab, nil when none is.
func (d *drivenTab) asking() *elicitor {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.call
}

// acting marks el as the call acting in the tab; the returned func ends
// that, unless another call took over meanwhile.
func (d *drivenTab) acting(el *elicitor) func() {
	d.mu.Lock()
	d.call = el
	d.mu.Unlock()
	return func() {
		d.mu.Lock()
		if d.call == el {
			d.call = nil
		}
		d.mu.Unlock()
	}
}

// isAllowed reports whether the user allowed key for the tab's life.
func (d *drivenTab) isAllowed(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.allowed[key]
}

// allow remembers that the user allowed key for the tab's life.
func (d *drivenTab) allow(key string) {
	d.mu.Lock()
	d.allowed[key] = true
	d.mu.Unlock()
}
