package mcpserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"vroom/internal/modeltest"
	"vroom/internal/testkit"
)

// benchPage has one control of each kind an action is timed on: an
// immediate effect each, so what is timed is Vroom's verified action.
const benchPage = `<!doctype html><title>Settings</title><main><h1>Settings</h1>
<label>Name <input id="name"></label>
<label for="c">Country</label><select id="c"><option>Argentina</option><option>Brazil</option><option>Canada</option></select>
<button type="button" id="apply">Apply</button><p id="status">Nothing applied yet.</p></main>
<script>let n = 0; const el = (id) => document.getElementById(id);
el('apply').onclick = () => { el('status').textContent = 'Applied ' + el('c').value + ' (' + (++n) + ')'; };</script>`

// BenchmarkMCPActions is what a client waits for one verified action
// through the MCP server (the in-memory transport, as stdio is): the
// action, its verdict and the page's diff, medians in ms. navigate loads
// the page again in place and returns its observation.
func BenchmarkMCPActions(b *testing.B) {
	h := newMCPHarness(b)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, benchPage)
	}))
	b.Cleanup(site.Close)
	cs := h.connect(b, "stdio", nil)
	var page pageResult
	callTool(b, cs, "open", map[string]any{"url": site.URL + "/"}, &page)
	refs := func(p string) (string, string, string) {
		return modeltest.Ref(p, "textbox", "Name"), modeltest.Ref(p, "combobox", "Country"), modeltest.Ref(p, "button", "Apply")
	}
	name, country, apply := refs(page.Page)
	if name == "" || country == "" || apply == "" {
		b.Fatalf("controls not found in:\n%s", page.Page)
	}
	options := []string{"Argentina", "Brazil", "Canada"}
	var click, typ, sel, nav []float64
	timed := func(into *[]float64, tool string, args map[string]any) *actResult {
		var out actResult
		t0 := time.Now()
		res := callTool(b, cs, tool, args, &out)
		*into = append(*into, float64(time.Since(t0).Microseconds())/1000)
		if res.IsError {
			b.Fatalf("%s %v: %s", tool, args, contentText(res))
		}
		return &out
	}
	for i := 0; b.Loop(); i++ {
		with := func(kv ...any) map[string]any {
			m := map[string]any{"tab": page.Tab}
			for j := 0; j < len(kv); j += 2 {
				m[kv[j].(string)] = kv[j+1]
			}
			return m
		}
		if r := timed(&typ, "type", with("ref", name, "text", fmt.Sprint("Ada ", i))); !r.Effect {
			b.Fatalf("type had no effect: %+v", r)
		}
		if r := timed(&sel, "select", with("ref", country, "option", options[(i+1)%3])); !r.Effect {
			b.Fatalf("select had no effect: %+v", r)
		}
		if r := timed(&click, "click", with("ref", apply)); !r.Effect {
			b.Fatalf("click had no effect: %+v", r)
		}
		var out pageResult
		t0 := time.Now()
		callTool(b, cs, "navigate", with("url", site.URL+fmt.Sprint("/?", i)), &out)
		nav = append(nav, float64(time.Since(t0).Microseconds())/1000)
		name, country, apply = refs(out.Page)
		if apply == "" {
			// navigate's result is an action's: the new page is its diff.
			var obs pageResult
			callTool(b, cs, "observe", map[string]any{"tab": page.Tab}, &obs)
			name, country, apply = refs(obs.Page)
		}
	}
	b.ReportMetric(testkit.Median(click), "ms/click")
	b.ReportMetric(testkit.Median(typ), "ms/type")
	b.ReportMetric(testkit.Median(sel), "ms/select")
	b.ReportMetric(testkit.Median(nav), "ms/navigate")
}
