package app

import (
	"bytes"
	"testing"
)

// vroom run passes its own words into agents' refusals: with nobody to
// ask, a refusal names the flag that would have allowed it.
func TestRunFlagsAreTheRefusalsHints(t *testing.T) {
	t.Parallel()
	o, err := parseRunArgs([]string{"read the docs"}, DefaultSettings(), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	spec := o.spec(runEnv{Settings: DefaultSettings(), DataDir: t.TempDir()}, nil, newEventPrinter(&bytes.Buffer{}, false), &bytes.Buffer{})
	h := runConfig(spec, "").Hints
	if h.LeaveSites == nil || h.LeaveSites("docs.test:8080") != "--allow-host docs.test:8080 or --allow-any-host" {
		t.Fatalf("leaving the sites: %+v", h)
	}
	if h.Irreversible != "--allow-irreversible" {
		t.Fatalf("irreversible actions: %q", h.Irreversible)
	}
}
