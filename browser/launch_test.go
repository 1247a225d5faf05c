package browser

import (
	"slices"
	"testing"

	"vroom/internal/testenv"
)

// TestChromePathsMatchTestenv keeps internal/testenv's copy of the search
// list equal to FindChrome's (testenv may not import this package), so the
// tests drive the Chromium the app would find.
func TestChromePathsMatchTestenv(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ProgramFiles": `C:\PF`, "ProgramFiles(x86)": `C:\PF86`, "LocalAppData": `C:\Users\u\AppData\Local`}
	getenv := func(k string) string { return env[k] }
	for _, goos := range []string{"linux", "darwin", "windows", "freebsd"} {
		files, names := chromePaths(goos, getenv)
		tfiles, tnames := testenv.ChromiumPaths(goos, getenv)
		if !slices.Equal(files, tfiles) || !slices.Equal(names, tnames) {
			t.Errorf("%s: browser searches %q then %q; testenv %q then %q", goos, files, names, tfiles, tnames)
		}
	}
	found, err := FindChrome()
	tfound, terr := testenv.FindChromium()
	if found != tfound || (err == nil) != (terr == nil) {
		t.Errorf("FindChrome: %q, %v; testenv.FindChromium: %q, %v", found, err, tfound, terr)
	}
}
