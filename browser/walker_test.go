package browser

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every module under js/ is part of the walker, once, and the walker
// publishes itself last: a module left out of walkerModules would be
// embedded nowhere and its functions missing in the page.
func TestWalkerJoinsEveryModule(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("js", "*.js"))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk, joined []string
	for _, f := range files {
		onDisk = append(onDisk, filepath.Base(f))
	}
	for _, m := range walkerModules() {
		joined = append(joined, m.name)
		b, err := os.ReadFile(filepath.Join("js", m.name))
		if err != nil || string(b) != m.src {
			t.Errorf("module %s is not js/%s as embedded (%v)", m.name, m.name, err)
		}
	}
	if slices.Sort(onDisk); !slices.Equal(onDisk, slices.Sorted(slices.Values(joined))) {
		t.Fatalf("js/ holds %q, the walker joins %q", onDisk, joined)
	}
	if joined[len(joined)-1] != "api.js" {
		t.Fatalf("the walker is published by %s, not last", joined[len(joined)-1])
	}
	if !strings.HasPrefix(walkerJS, "(() => {\nif (globalThis.__vroom) return;\n") || !strings.HasSuffix(walkerJS, "})();\n") {
		t.Fatalf("the walker is not one function that installs once:\n%s…", walkerJS[:200])
	}
}
