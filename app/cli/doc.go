// Package cli is Vroom's terminal face: vroom run (a task headless, a line
// or JSON line per event, typed lines and push-to-talk as corrections,
// exit 0/1/2), vroom replay, vroom doctor, vroom observe and vroom mcp's
// command line (its flags and browsers; the server is mcpserver's). Each
// command fills a runner.RunSpec, or hands the browsers it connected to
// the MCP server, and adds only its flags and output.
//
// It may import runner, doctor, mcpserver, runlog, config, remote,
// agents, browser and voice; never app.
package cli
