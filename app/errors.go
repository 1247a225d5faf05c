package app

import "errors"

// Errors the bound methods return; the UI shows their messages, so each
// reads as a sentence about what to do.
var (
	// ErrBrowserNotReady is returned while the browser is still starting
	// (or failed to start: the error then says why).
	ErrBrowserNotReady = errors.New("the browser is not ready yet")
	// ErrNoRun is returned by run controls when no run is active.
	ErrNoRun = errors.New("no run is active")
	// ErrRunActive is returned when a task is submitted while another run
	// is going (or being started).
	ErrRunActive = errors.New("a run is already active: stop it first")
	// ErrClosing is returned for a run that would start while Vroom
	// closes.
	ErrClosing = errors.New("Vroom is closing")
	// ErrNoCard is returned for an answer to a card that is not waiting.
	ErrNoCard = errors.New("no such card is waiting")
	// ErrNoAgent is returned for an agent name the active run does not
	// have.
	ErrNoAgent = errors.New("no such agent in this run")
	// ErrNoDisplay is returned by RunDesktop where no graphical session
	// answers: the window cannot open, but vroom run works headless.
	ErrNoDisplay = errors.New("the Vroom window needs a graphical session (X11 or Wayland); 'vroom run TASK' works headless")
)
