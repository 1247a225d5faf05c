package browser

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// wordsFixtures adds the generated pages of the text tests: a page framing
// a cross-site iframe and a same-origin one that hold text, and a list of
// n links.
func wordsFixtures(mux *http.ServeMux) {
	mux.HandleFunc("/framed-text.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Harbour notices</title></head><body>
<h1>Harbour notices</h1><p>The slipway is closed on Tuesday for repairs.</p>
<iframe id="cross" src="%s/frame-text.html" style="width:420px;height:220px;border:0"></iframe>
<iframe id="same" src="/inner.html" style="width:300px;height:120px;border:0"></iframe>
<iframe id="gone" src="/frame-text.html" style="display:none"></iframe>
<p>Moorings are renewed in April.</p>
</body></html>`, crossSite())
	})
	mux.HandleFunc("/items.html", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if n <= 0 {
			n = 5000
		}
		var sb strings.Builder
		sb.WriteString(`<!doctype html><html><head><title>Items</title></head><body><h1>Items</h1><ul>`)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&sb, `<li><a href="#item-%d">Item %d</a></li>`, i, i)
		}
		sb.WriteString(`</ul></body></html>`)
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(sb.String()))
	})
}
