package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"

	"vroom/internal/testenv"
)

// One Chromium per test binary; every test opens its own tab.
var (
	testBrowser *Browser
	site        *httptest.Server // fixtures
	other       *httptest.Server // a second origin, for cross-origin iframes
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if _, err := FindChrome(); err != nil {
		// Every test here needs Chromium: none runs without it.
		if testenv.MainMissing(fmt.Sprintf("Chromium (%v)", err)) {
			return 1
		}
		return 0
	}
	site = httptest.NewServer(fixtures())
	defer site.Close()
	other = httptest.NewServer(fixtures())
	defer other.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, err := Launch(ctx, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		return 1
	}
	testBrowser = b
	code := m.Run()
	if err := b.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "close:", err)
		return max(code, 1)
	}
	return code
}

func fixtures() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("testdata")))
	apiFixtures(mux)
	wordsFixtures(mux)
	feedFixtures(mux)
	mux.HandleFunc("/siblings.html", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if n <= 0 {
			n = 5000
		}
		var sb strings.Builder
		sb.WriteString(`<!doctype html><html><head><title>Siblings</title></head><body><h1>Wide row</h1><div id="row">`)
		for i := range n {
			fmt.Fprintf(&sb, `<button onclick="document.title='b%d'">Button %d</button>`, i, i)
		}
		sb.WriteString(`</div></body></html>`)
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(sb.String()))
	})
	mux.HandleFunc("/iframes.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Frames</title></head><body>
<h1>Frames</h1><button id="top">Top button</button>
<p id="msgs"></p>
<iframe id="same" src="/inner.html" style="width:300px;height:120px;border:5px solid #888"></iframe>
<iframe id="cross" src="%s/inner.html" style="width:300px;height:120px;border:0"></iframe>
<script>addEventListener('message', (e) => { document.getElementById('msgs').textContent += e.origin + ' '; });</script>
</body></html>`, crossSite())
	})
	mux.HandleFunc("/slow.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Slow</title><button id="hang" onclick="setTimeout(()=>{for(;;){}},0)">Hang</button>`)
	})
	return mux
}

// crossSite is the second server under another host name: 127.0.0.1 and
// localhost are different sites, so its iframe is cross-site, not only
// cross-origin.
func crossSite() string {
	return strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
}

// openTab opens a fixture page in a fresh tab the way Vroom opens an
// agent's, a client's or the person's (Open: a window of its own), closed
// at the end of the test.
func openTab(t *testing.T, path string) *Tab {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tab, err := testBrowser.Open(ctx, site.URL+path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tab.Close(ctx)
	})
	return tab
}

func tctx(t *testing.T) context.Context {
	return tctxFor(t, 20*time.Second)
}

// tctxFor is tctx with room for tests that start browsers of their own,
// which is slow on a loaded two-core machine.
func tctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// eval reads page state in the page's own main world, for assertions.
func eval[T any](t *testing.T, tab *Tab, expr string) T {
	t.Helper()
	var v T
	res, err := cdp.Call(tctx(t), tab.target(), runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: new(true), AwaitPromise: new(true)})
	if err != nil {
		t.Fatalf("eval %s: %v", expr, err)
	}
	if res.ExceptionDetails != nil {
		t.Fatalf("eval %s: %s", expr, exceptionText(res.ExceptionDetails))
	}
	if err := json.Unmarshal(res.Result.Value, &v); err != nil {
		t.Fatalf("eval %s: %v", expr, err)
	}
	return v
}

// find returns the first control with the role whose name contains name.
func find(t *testing.T, o *Observation, role, name string) Control {
	t.Helper()
	for _, c := range o.Controls {
		if (role == "" || c.Role == role) && strings.Contains(c.Name, name) {
			return c
		}
	}
	t.Fatalf("no %s %q in observation:\n%s", role, name, o.Compact())
	return Control{}
}

func emulateScale(ctx context.Context, tab *Tab, dpr float64) error {
	_, err := cdp.Call(ctx, tab.target(), emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(testBrowser.opts.Width), Height: int64(testBrowser.opts.Height), DeviceScaleFactor: dpr,
	})
	return err
}
