package app

import "time"

// The bindings' deadlines. A bound method runs while the UI waits on its
// promise, so each bounds what it waits on and fails with a message
// rather than leaving a button spinning.
const (
	// browserWait bounds a binding that needs the browser and a page:
	// waiting for the session's browser to start, opening or navigating a
	// tab, building a run (the keyring, the audio probe), handing a tab to
	// an agent.
	browserWait = 30 * time.Second
	// takeOverWait bounds pausing an agent for the person to drive its
	// tab: the agent first finishes the action it is in.
	takeOverWait = 30 * time.Second
	// tabCloseWait bounds closing a tab, which a page's unload handlers
	// can hold up.
	tabCloseWait = 10 * time.Second
	// inputWait bounds forwarding one of the person's input events, or
	// resizing the viewport of a taken-over tab: input is sent one event
	// at a time, so a stuck tab must not hold the queue for long.
	inputWait = 5 * time.Second
	// micWait bounds opening or closing the microphone (the sound server's
	// round trips).
	micWait = 5 * time.Second
	// tabsCoalesce is the default window in which tab changes merge into
	// one EventTabs: a page loading fires title, URL, favicon and loading
	// changes in a burst.
	tabsCoalesce = 50 * time.Millisecond
	// liveHeaderWait bounds reading a live-view request's headers.
	liveHeaderWait = 5 * time.Second
)
