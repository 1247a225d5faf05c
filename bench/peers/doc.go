// Command peers is Vroom's side-by-side benchmark against the browser
// engines other agents use: Playwright MCP, chrome-devtools-mcp and
// agent-browser (its MCP mode and its CLI), each at a pinned version.
//
// It owns the whole comparison and nothing of Vroom's inside: it installs
// the peers from npm into a temporary folder, builds (or takes) the vroom
// binary, serves its own fixture pages (testdata/) from a loopback server,
// and drives every engine as a separate process — Vroom through `vroom
// mcp`, the peers through their MCP servers or their CLI, each as its own
// documentation recommends — on the same pages and the same Chromium, in
// interleaved repetitions. It prints one table: milliseconds per action
// (open, click, type, select), characters per observation on each page, and
// characters and calls per flow (a login, reaching one item of 5,000, reading
// an article's third paragraph, a late effect after a click). With -md it
// writes the table as Markdown for BENCHMARKS.md.
//
// It is run by hand (`go run ./bench/peers -md`), never by CI: it needs
// the npm registry and takes minutes.
package main
