package browser

import (
	"sync"

	"github.com/chromedp/cdproto/network"
)

// What a page's script loads without fetch or XHR — a module it import()s
// (how a code-split app brings in the dialog or the route a click asks
// for), a script or a stylesheet it adds — netwatch.js cannot follow: no
// function of the page's starts it. The tab's session hears each as a
// Network event, which the renderer sends on the same channel as, and so
// before, the answer to the settle's call that follows the input. An action
// that started such a load settles again once the load has come (see
// settleLoads), so what the loaded code does is in the answer rather than
// after it. Images are not waited for: a feed's script adds them by the
// dozen on every scroll, and what they show a model is already in their
// alt text; an action whose only doing is an image still loading (a
// preload the page shows once it has come) is answered as still loading,
// not as having had no effect.

// scriptLoads follows, from before an action's input, the loads the
// page's script starts. It hears them through the action's navHeard, in
// the target's own event loop, in order with the answers to calls: once
// the settle's call has answered, every load begun before that answer is
// here.
type scriptLoads struct {
	mu sync.Mutex
	// open are the loads begun and not ended, by request; seen says
	// whether any was begun at all. images are the images begun and not
	// ended: not waited for, but an action with no other effect reports
	// them as still loading rather than as having had none.
	open   map[network.RequestID]string
	seen   bool
	images map[network.RequestID]bool
}

// followLoads has ev follow the loads the page's script begins, from now
// until ev stops.
func (t *Tab) followLoads(ev *navEvents) {
	l := &scriptLoads{open: map[network.RequestID]string{}, images: map[network.RequestID]bool{}}
	ev.heard.loads.Store(l)
}

// heard takes in one event of the target's. It runs in the target's
// event loop, so it only notes.
func (l *scriptLoads) heard(ev any) {
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		if e.Initiator == nil || e.Request == nil || e.RedirectResponse != nil {
			return
		}
		l.mu.Lock()
		switch {
		case e.Initiator.Type != network.InitiatorTypeScript:
		case e.Type == network.ResourceTypeScript, e.Type == network.ResourceTypeStylesheet:
			l.open[e.RequestID], l.seen = e.Request.URL, true
		}
		if e.Type == network.ResourceTypeImage && e.Initiator.Type != network.InitiatorTypeParser {
			// An image made in script (new Image()) is Chromium's own
			// doing ("other"), not the script's.
			l.images[e.RequestID] = true
		}
		l.mu.Unlock()
	case *network.EventLoadingFinished:
		l.end(e.RequestID)
	case *network.EventLoadingFailed:
		l.end(e.RequestID)
	}
}

func (l *scriptLoads) end(id network.RequestID) {
	l.mu.Lock()
	delete(l.open, id)
	delete(l.images, id)
	l.mu.Unlock()
}

// state says whether any load of code was begun, the URLs of those still
// on their way, and how many images are.
func (l *scriptLoads) state() (seen bool, pending []string, images int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, u := range l.open {
		pending = append(pending, u)
	}
	return l.seen, pending, len(l.images)
}
