// Package testenv tells a test whether a real component it needs is here:
// the display, Secret Service or sound server that build/testenv.sh
// starts (make test). Without one, a test skips on a
// developer's machine and fails in CI or under make test (Strict), so a
// missing install step cannot hide behind a skip. Missing is that rule for
// a test, MainMissing for a TestMain; every package's tests use them
// rather than reading the environment themselves. For the fault tests it
// also gives a test real components of its own, to kill: a private
// PulseAudio (PrivatePulse) and the Chromium on a profile (ChromiumPID,
// KillChromium).
//
// It imports nothing else from Vroom; only tests may import it. Chromium
// is found by browser.FindChrome alone, so tests drive the browser the app
// would find: one search list.
package testenv
