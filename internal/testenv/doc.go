// Package testenv tells a test whether a real component it needs is here:
// the display, Secret Service, sound server or Chromium that
// build/testenv.sh starts (make test). Without one, a test skips on a
// developer's machine and fails in CI, so a missing install step cannot hide
// behind a skip.
//
// It imports nothing else from Vroom; only tests may import it.
package testenv
