// Package testkit holds the small helpers every package's tests need and
// none should write again: a buffer a child process or a log writes while
// the test reads it (LockedBuffer), a wait for a condition with a deadline
// (WaitFor), the median of a benchmark's samples (Median) and a loopback
// port nothing listens on (FreePort). The browser's own fault helpers
// (ChromiumPID, KillChromium) live in testenv beside the components they
// find; the scripted model and its planner scripts in modeltest.
//
// It imports nothing else from Vroom, so every package's tests may use it;
// no production code may. The root package's testkit_test.go checks that
// none of these helpers is defined again elsewhere in the module.
package testkit
